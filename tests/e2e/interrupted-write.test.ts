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
import { CAN_SEE_WCHAN, blockedReading, waitFor } from '../helpers/wait-for.ts';

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
    // Signalled once it has read the part and blocks reading the rest (seen in /proc/PID/wchan), so the
    // signal lands mid-content, not before zipfs reads anything (which would prove nothing).
    it.skipIf(!CAN_SEE_WCHAN)(
      `leaves the file as it was on ${signal}, and writes nothing${CAN_SEE_WCHAN ? '' : ' (skipped: needs /proc/PID/wchan)'}`,
      async () => {
        const child = Bun.spawn([BINARY, 'write', 'META-INF/MANIFEST.MF'], {
          env: { ...process.env, ZIPFS_HOME: box.home },
          stdin: 'pipe',
          stdout: 'pipe',
          stderr: 'pipe',
        });
        child.stdin.write('Manifest-Vers'); // part of the new content; the rest never comes
        await child.stdin.flush();
        // A reader woken by the write runs (wchan empty) until it has taken the part and blocks again.
        await waitFor(() => blockedReading(child.pid) || child.exitCode !== null, {
          what: 'zipfs to read the part and block reading the rest',
        });
        expect(child.exitCode).toBeNull();
        child.kill(signal);
        await child.exited;
        expect(child.exitCode === 0).toBe(false);
        expect(await new Response(child.stdout).text()).not.toContain('Wrote');
        expect(fs.readFileSync(path.join(root, 'META-INF/MANIFEST.MF'), 'utf8')).toBe('Manifest-Version: 1.0\n');
        expect(fs.readdirSync(path.join(root, 'META-INF'))).toStrictEqual(['MANIFEST.MF']); // no temporary left
        expect(box.run(['status', '--json']).json.modified).toStrictEqual([]);
      },
    );
  }
});
