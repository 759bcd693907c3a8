import { afterAll, describe, expect, it } from 'bun:test';
import { needs } from '../helpers/tools.ts';
import fs from 'node:fs';
import path from 'node:path';
import { FileSource, readCentralDirectory, readEntryData } from '../../src/zip/index.ts';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox } from '../helpers/cli.ts';

const withPython = needs('python3');

const box = sandbox();
afterAll(() => box.cleanup());

/** Reads every entry with CRC checks; returns the marker's content, or throws if the archive is not whole. */
function verify(zip: string): string {
  const source = new FileSource(zip);
  try {
    const directory = readCentralDirectory(source);
    let marker = '';
    for (const entry of directory.entries) {
      const data = readEntryData(source, entry);
      if (entry.name === 'marker.txt') marker = Buffer.from(data).toString();
    }
    expect(directory.entries.length).toBe(13);
    return marker;
  } finally {
    source.close();
  }
}

describe.skipIf(withPython.skip)(`sync survives SIGKILL at any moment${withPython.why}`, () => {
  it('always leaves a complete archive, old or new, and the next sync works', async () => {
    const zip = path.join(box.dir, 'large.zip');
    const made = Bun.spawnSync([
      'python3',
      '-c',
      "import sys, os, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w') as z:\n    z.writestr('marker.txt', 'v0')\n  " +
        "  for i in range(12): z.writestr(f'blob{i:02}.bin', os.urandom(8 << 20))",
      zip,
    ]);
    expect(made.exitCode).toBe(0);
    const root = box.run(['open', zip, '--json']).json.workspace_path;
    const env = { ...process.env, ZIPFS_HOME: box.home };

    // How long an undisturbed sync takes here, to spread the kills across it.
    fs.writeFileSync(path.join(root, 'marker.txt'), 'v1');
    const started = performance.now();
    expect(box.run(['sync', '--json']).json.synced).toBe(true);
    const duration = performance.now() - started;
    expect(verify(zip)).toBe('v1');

    let committed = 'v1';
    for (const [i, fraction] of [0.05, 0.2, 0.4, 0.6, 0.8, 0.95, 1.1].entries()) {
      const next = `v${i + 2}`;
      fs.writeFileSync(path.join(root, 'marker.txt'), next);
      const child = Bun.spawn([BINARY, 'sync'], { env, stdout: 'ignore', stderr: 'ignore' });
      await Bun.sleep(Math.max(5, duration * fraction));
      child.kill('SIGKILL');
      await child.exited;
      const marker = verify(zip); // never a partial file at the path
      expect([committed, next]).toContain(marker);
      committed = marker;
      // The next sync recovers (lock, temporaries, half-finished manifest) and brings the zip up to date.
      const recovered = box.run(['sync', '--json']).json;
      expect(recovered.error).toBeUndefined();
      expect(verify(zip)).toBe(next);
      committed = next;
      expect(box.run(['status', '--json']).json.modified).toStrictEqual([]);
    }
    expect(fs.readdirSync(box.dir).filter((n) => n.includes('.zipfs-'))).toStrictEqual([]);
  }, 120_000);
});
