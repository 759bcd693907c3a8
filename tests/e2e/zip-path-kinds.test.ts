/**
 * A zip path that names something other than a regular file: a FIFO, a
 * socket, a device, a folder. open, inspect and open --create on a FIFO once
 * blocked for ever in open(2), deaf to SIGINT and SIGTERM, and so did diff and
 * sync on a FIFO put in the zip's place after open. Now each is refused by
 * kind before a byte is read. Every run has a hang guard: a hung zipfs fails
 * the test instead of stalling the suite.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { ERROR_CODES, type ErrorCode } from '../../src/base/errors.ts';
import { BINARY } from '../helpers/ensure-binary.ts';
import { reportsSandbox, sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { sha } from '../helpers/zip-compare.ts';
import { needs } from '../helpers/tools.ts';

const GUARD = { timeoutMs: 10_000 };
const withMkfifo = needs('mkfifo');

function mkfifo(file: string): void {
  expect(Bun.spawnSync(['mkfifo', file]).exitCode).toBe(0);
}

/** Runs `body` with a listening Unix socket at `file`. */
async function withSocket(file: string, body: () => void): Promise<void> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(file, resolve));
  try {
    body();
  } finally {
    server.close();
  }
}

function expectRefused(result: { code: number; json: any }, code: ErrorCode, ...words: string[]): void {
  expect(result.json?.error?.code).toBe(code);
  expect(result.code).toBe(ERROR_CODES[code].exit);
  for (const word of words) expect(result.json.error.message).toContain(word);
}

describe('a zip path that is not a regular file, given to open, inspect and open --create', () => {
  let box: ReturnType<typeof sandbox>;
  beforeEach(() => (box = sandbox()));
  afterEach(() => box.cleanup());

  /**
   * open, inspect and open --create all refuse `zip` with `code`, naming it and what it is; no session, no folder is
   * left.
   */
  function expectAllRefuse(zip: string, code: ErrorCode, kind: string): void {
    for (const args of [
      ['open', zip],
      ['inspect', zip],
      ['open', zip, '--create'],
    ]) {
      expectRefused(box.run([...args, '--json'], GUARD), code, zip, kind);
    }
    const workspaces = path.join(box.home, 'workspaces');
    expect(fs.existsSync(workspaces) ? fs.readdirSync(workspaces) : []).toStrictEqual([]);
  }

  it.skipIf(withMkfifo.skip)(`refuses a FIFO at once, without waiting for a writer${withMkfifo.why}`, () => {
    const zip = path.join(box.dir, 'pipe.zip');
    mkfifo(zip);
    expectAllRefuse(zip, 'ZIP_INVALID', 'is a FIFO (named pipe), not a zip file');
  });

  it.skipIf(withMkfifo.skip)(
    `follows a link to the zip, and refuses a link to a FIFO by what it names${withMkfifo.why}`,
    () => {
      const fifo = path.join(box.dir, 'pipe');
      mkfifo(fifo);
      const toFifo = path.join(box.dir, 'to-pipe.zip');
      fs.symlinkSync(fifo, toFifo);
      expectAllRefuse(toFifo, 'ZIP_INVALID', 'a FIFO (named pipe)');

      const toZip = path.join(box.dir, 'to-reports.zip');
      fs.symlinkSync(writeZip(box.dir, 'reports.zip', reportsZip()), toZip);
      expect(box.run(['inspect', toZip, '--json'], GUARD).json.total_entries).toBe(9);
      expect(box.run(['open', toZip, '--json'], GUARD).json.file_count).toBe(6);
    },
  );

  it('refuses a socket', async () => {
    const zip = path.join(box.dir, 'agent.zip');
    await withSocket(zip, () => expectAllRefuse(zip, 'ZIP_INVALID', 'is a socket, not a zip file'));
  });

  it('refuses a character device (a link to /dev/null), without reading it', () => {
    const zip = path.join(box.dir, 'null.zip');
    fs.symlinkSync('/dev/null', zip);
    expectAllRefuse(zip, 'ZIP_INVALID', 'is a character device, not a zip file');
  });

  it('refuses a folder as no zip file there (ZIP_NOT_FOUND)', () => {
    const zip = path.join(box.dir, 'folder.zip');
    fs.mkdirSync(zip);
    expectAllRefuse(zip, 'ZIP_NOT_FOUND', 'is a folder, not a zip file');
  });
});

describe("something put in the zip's place after open", () => {
  let box: ReturnType<typeof sandbox>;
  let zip: string;
  let root: string;
  beforeEach(() => {
    ({ box, zip, root } = reportsSandbox(true));
    fs.writeFileSync(path.join(root, 'notes.txt'), 'an edit to sync\n');
  });
  afterEach(() => box.cleanup());

  /** diff and every sync refuse, naming the path and what is there; status still answers. Nothing replaced it. */
  function expectSessionRefuses(code: ErrorCode, kind: string): void {
    for (const args of [['diff'], ['sync'], ['sync', '--force'], ['sync', '--dry-run'], ['close', '--sync']]) {
      expectRefused(
        box.run([...args, '--json'], GUARD),
        code,
        `The zip path ${zip} now holds ${kind}`,
        'will neither read it nor write over it',
      );
    }
    expect(box.run(['status', '--json'], GUARD).json.added).toStrictEqual(['notes.txt']);
    expect(fs.readdirSync(box.dir).sort()).toStrictEqual(['home', 'reports.zip', 'reports.zip.moved']);
  }

  it.skipIf(withMkfifo.skip)(
    `refuses a FIFO at diff and sync, even forced, and syncs once the zip is back${withMkfifo.why}`,
    () => {
      fs.renameSync(zip, `${zip}.moved`);
      mkfifo(zip);
      expectSessionRefuses('ZIP_INVALID', 'a FIFO (named pipe)');
      expect(fs.lstatSync(zip).isFIFO()).toBe(true);

      fs.rmSync(zip);
      fs.renameSync(`${zip}.moved`, zip);
      expect(box.run(['sync', '--json'], GUARD).json).toMatchObject({ synced: true, files_added: 1 });
    },
  );

  it.skipIf(withMkfifo.skip)(
    `answers status without touching a FIFO when a killed sync left its next manifest${withMkfifo.why}`,
    () => {
      // What a sync killed between its rename and its manifest update leaves: status then looks at the zip.
      const manifest = path.join(box.home, 'workspaces', 'reports', 'manifest.jsonl');
      fs.copyFileSync(manifest, `${manifest}.next`);
      fs.renameSync(zip, `${zip}.moved`);
      mkfifo(zip);
      const status = box.run(['status', '--json'], GUARD);
      expect(status.code).toBe(0);
      expect(status.json.added).toStrictEqual(['notes.txt']);
      expect(fs.existsSync(`${manifest}.next`)).toBe(false); // not the archive it describes: forgotten
    },
  );

  it('refuses a socket and a folder in its place', async () => {
    fs.renameSync(zip, `${zip}.moved`);
    await withSocket(zip, () => expectSessionRefuses('ZIP_INVALID', 'a socket'));
    fs.rmSync(zip, { force: true });
    fs.mkdirSync(zip);
    expectSessionRefuses('ZIP_NOT_FOUND', 'a folder');
  });

  it('refuses a link to /dev/null in its place', () => {
    const before = sha(zip);
    fs.renameSync(zip, `${zip}.moved`);
    fs.symlinkSync('/dev/null', zip);
    expectSessionRefuses('ZIP_INVALID', 'a character device');
    expect(fs.readlinkSync(zip)).toBe('/dev/null');
    expect(sha(`${zip}.moved`)).toBe(before);
  });

  it.skipIf(withMkfifo.skip)(
    `refuses a FIFO that appeared where an open --create session's archive is to go, even forced${withMkfifo.why}`,
    () => {
      const fresh = path.join(box.dir, 'fresh.zip');
      expect(box.run(['open', fresh, '--create', '--json'], GUARD).json.name).toBe('fresh');
      mkfifo(fresh);
      for (const args of [
        ['sync', 'fresh'],
        ['sync', 'fresh', '--force'],
      ]) {
        expectRefused(
          box.run([...args, '--json'], GUARD),
          'ZIP_INVALID',
          `The zip path ${fresh} now holds a FIFO (named pipe)`,
        );
      }
      expect(fs.lstatSync(fresh).isFIFO()).toBe(true);
    },
  );
});

describe('signals while zipfs waits', () => {
  const canSee = fs.existsSync('/proc/self/wchan');

  it.skipIf(!canSee)(
    'SIGTERM and SIGINT stop a zipfs waiting for stdin that never comes, at once (skipped without /proc/<pid>/wchan)',
    async () => {
      const { box } = reportsSandbox(true);
      try {
        for (const [signal, code] of [
          ['SIGTERM', 143],
          ['SIGINT', 130],
        ] as const) {
          // write without content reads it from stdin: this test holds it open and never writes.
          const child = Bun.spawn([BINARY, 'write', 'notes.txt'], {
            env: { ...process.env, ZIPFS_HOME: box.home },
            stdin: 'pipe',
            stdout: 'ignore',
            stderr: 'ignore',
          });
          const waiting = () => {
            try {
              // anon_pipe_read, unix_stream_read_generic
              return /read/.test(fs.readFileSync(`/proc/${child.pid}/wchan`, 'utf8'));
            } catch {
              return false;
            }
          };
          while (!waiting() && child.exitCode === null) await Bun.sleep(5);
          expect(waiting()).toBe(true); // blocked in read(2) on stdin
          child.kill(signal);
          const guard = Bun.sleep(GUARD.timeoutMs).then(() => 'still waiting');
          const outcome = await Promise.race([child.exited, guard]);
          if (outcome === 'still waiting') child.kill('SIGKILL');
          expect(outcome).toBe(code);
        }
      } finally {
        box.cleanup();
      }
    },
    30_000,
  );
});
