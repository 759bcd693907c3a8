import path from 'node:path';

/**
 * Where a worker's code is, given its path below src/ (`open/extract-worker.ts`).
 * From source it sits below src/, this file's folder's parent. In the compiled binary every
 * entry point lives in Bun's embedded file system under the entries' common
 * folder (src/), beside the binary's own entry (Bun.main), so the path is
 * spelled from there; scripts/build.ts adds each worker as an entry.
 */
export function workerPath(file: string): string {
  if (Bun.main.startsWith('/$bunfs/') || Bun.main.includes('~BUN'))
    return path.posix.join(path.posix.dirname(Bun.main.replaceAll('\\', '/')), file);
  return path.join(__dirname, '..', file); // this file is in src/base/
}
