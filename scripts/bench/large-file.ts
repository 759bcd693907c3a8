/** sync of one large added file (sparse, so it costs no disk): time and peak memory of the streamed deflate. */
import fs from 'node:fs';
import path from 'node:path';

export function largeFileSync(
  binary: string,
  scratch: string,
  bytes: number,
): { seconds: number; peakRssKiB: number; archiveBytes: number } {
  const dir = fs.mkdtempSync(path.join(scratch, 'large-'));
  const zip = path.join(dir, 'small.zip');
  // A sparse file is all zeros, far over open's ratio limits: sync refuses what open would refuse, so trust it here.
  const env = {
    ...process.env,
    ZIPFS_HOME: path.join(dir, 'home'),
    ZIPFS_MAX_EXTRACTED_BYTES: String(2 * bytes),
    ZIPFS_MAX_RATIO: '100000',
    ZIPFS_MAX_ENTRY_RATIO: '100000',
  };
  fs.writeFileSync(zip, Buffer.from('504b0506000000000000000000000000000000000000', 'hex')); // an empty zip
  const opened = JSON.parse(Bun.spawnSync([binary, 'open', zip, '--json'], { env }).stdout.toString());
  const file = path.join(opened.workspace_path, 'large.bin');
  fs.writeFileSync(file, '');
  fs.truncateSync(file, bytes);
  Bun.spawnSync(['sync']);
  const started = performance.now();
  const result = Bun.spawnSync(['/usr/bin/time', '-f', '%M', binary, 'sync', '--no-backup'], {
    env,
    stdout: 'ignore',
    stderr: 'pipe',
  });
  const seconds = (performance.now() - started) / 1000;
  if (result.exitCode !== 0) throw new Error(`zipfs sync of a ${bytes}-byte file failed: ${result.stderr.toString()}`);
  const peakRssKiB = Number(result.stderr.toString().trim().split('\n').at(-1));
  const archiveBytes = fs.statSync(zip).size;
  fs.rmSync(dir, { recursive: true, force: true });
  return { seconds, peakRssKiB, archiveBytes };
}
