/** What sync's read-back check (verify-written.ts) costs on an archive: run in-process on a warm
 * page cache, as sync runs it right after writing. */
import { FileSource, readCentralDirectory } from '../../src/zip/index.ts';
import { verifyWritten } from '../../src/sync/verify-written.ts';
import { median } from './report.ts';

export function verifyCost(archive: string, runs: number): { entries: number; medianMs: number } {
  const source = new FileSource(archive);
  const entries = readCentralDirectory(source).entries.length;
  source.close();
  verifyWritten(archive, entries); // warm-up
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    verifyWritten(archive, entries);
    times.push(performance.now() - started);
  }
  return { entries, medianMs: median(times) };
}
