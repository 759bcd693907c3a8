/**
 * `zipfs write PATH` with its content on stdin, interrupted before stdin ends
 * (a CI job's timeout, Ctrl-C): nothing is written. It once wrote what it had
 * read so far, leaving a truncated file (issue 24, point 3); a signal now ends
 * zipfs at once wherever it waits (exit-cleanup.ts), before any write.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';

let box: ReturnType<typeof sandbox>;
let root: string;
beforeEach(() => {
  box = sandbox();
  root = box.run([
    'open',
    writeZip(box.dir, 'app.jar', rawZip([{ name: 'META-INF/MANIFEST.MF', data: 'Manifest-Version: 1.0\n' }])),
    '--json',
  ]).json.workspace_path;
});
afterEach(() => box.cleanup());

describe('write from stdin, interrupted', () => {
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    it(`leaves the file as it was on ${signal}, and writes nothing`, async () => {
      const child = Bun.spawn([BINARY, 'write', 'META-INF/MANIFEST.MF'], {
        env: { ...process.env, ZIPFS_HOME: box.home },
        stdin: 'pipe',
        stdout: 'pipe',
        stderr: 'pipe',
      });
      child.stdin.write('Manifest-Vers'); // part of the new content; the rest never comes
      await child.stdin.flush();
      await Bun.sleep(300);
      child.kill(signal);
      await child.exited;
      expect(child.exitCode === 0).toBe(false);
      expect(await new Response(child.stdout).text()).not.toContain('Wrote');
      expect(fs.readFileSync(path.join(root, 'META-INF/MANIFEST.MF'), 'utf8')).toBe('Manifest-Version: 1.0\n');
      expect(fs.readdirSync(path.join(root, 'META-INF'))).toStrictEqual(['MANIFEST.MF']); // no temporary left
      expect(box.run(['status', '--json']).json.modified).toStrictEqual([]);
    });
  }
});
