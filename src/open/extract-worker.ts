/**
 * open's second thread: writes its share of the entries and reports bytes
 * done, or the first error, to the main thread.
 */
import fs from 'node:fs';
import { isSystemError, toZipfsError } from '../base/errors.ts';
import { FileSource } from '../zip/index.ts';
import { writeFileTask, type FileTask } from '../files/extract-files.ts';
import { fullJit } from '../base/jit-policy.ts';

// Started for a large archive only: its loop is worth compiling (jit-policy.ts).
fullJit();

export interface ExtractJob {
  /** The main thread's descriptor of the zip (threads share them), open until this worker is gone:
   * the zip's path may name another archive by now, whose bytes would not match the directory. */
  fd: number;
  root: string;
  tasks: FileTask[];
}

/** `errno`: the system error behind a failure (ENOSPC), so the main thread can say which disk is full. */
export type ExtractReport =
  | { kind: 'progress'; bytes: number }
  | { kind: 'done' }
  | { kind: 'error'; code: string; message: string; errno?: string };

async function run(job: ExtractJob): Promise<void> {
  const report = (message: ExtractReport) => postMessage(message);
  let source: FileSource | undefined;
  try {
    source = new FileSource({ fd: job.fd, stats: fs.fstatSync(job.fd) }); // not owned: the main thread closes it
    let bytes = 0;
    let last = Date.now();
    for (const task of job.tasks) {
      await writeFileTask(source, task, job.root);
      bytes += task.entry.uncompressedSize;
      if (Date.now() - last > 50) {
        report({ kind: 'progress', bytes });
        bytes = 0;
        last = Date.now();
      }
    }
    report({ kind: 'progress', bytes });
    report({ kind: 'done' });
  } catch (error) {
    const failure = toZipfsError(error);
    report({
      kind: 'error',
      code: failure.code,
      message: failure.message,
      errno: isSystemError(error) ? error.code : undefined,
    });
  } finally {
    source?.close();
  }
}

// The worker global's onmessage; bun-types declares it only alongside the DOM library.
(globalThis as unknown as { onmessage: (event: MessageEvent<ExtractJob>) => void }).onmessage = (event) =>
  void run(event.data);
