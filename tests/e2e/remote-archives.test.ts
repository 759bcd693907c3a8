/**
 * Archives on servers (issue 34): real servers on loopback, started here, as the current user.
 * nginx serves HTTPS ranges under a certificate from a CA this test makes (given to zipfs by
 * ZIPFS_CA_FILE, never by turning verification off); Apache's mod_dav serves WebDAV with Basic
 * authentication and answers 412 to a PUT whose If-Match is stale. Requests and bytes are counted
 * at the server, from its access log. Through the compiled binary, as a CLI and over MCP.
 */
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from 'bun:test';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox } from '../helpers/cli.ts';
import { TEST_ROOTS, call, connect } from '../helpers/mcp-client.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { APACHE, HTPASSWD, NGINX, missing, startHttps, startWebdav, type Server } from '../helpers/remote-servers.ts';

/** Text entries of 40 KiB each that do not compress much, so that the tail read at open holds only the last few. */
function entries(count: number): RawEntry[] {
  let seed = 7;
  const word = () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed.toString(36);
  };
  return Array.from({ length: count }, (_, i) => {
    let text = `entry ${i}\n`;
    while (text.length < 40 * 1024) text += `${word()} ${word()} ${word()}\n`;
    if (i === 12) text += 'the needle is here\n';
    return { name: `data/e${String(i).padStart(2, '0')}.txt`, data: text, method: 0, unixMode: 0o100644 };
  });
}
const ENTRIES = entries(30);
const ARCHIVE = rawZip(ENTRIES);
const ENTRY_BYTES = 40 * 1024;
const OPEN_TAIL = 128 * 1024;

/** Puts the archive on the server, dated a minute back (Apache gives a file changed this second a weak ETag). */
function place(server: Server, name: string, bytes: Uint8Array = ARCHIVE): void {
  const file = path.join(server.root, name);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, bytes);
  const then = new Date(Date.now() - 60_000);
  fs.utimesSync(file, then, then);
  if (process.getuid?.() === 0) spawnSync('chown', ['-R', 'www-data:www-data', server.root]);
}

/** An entry of the archive on the server now, by Python's zipfile (not zipfs's reader). */
function remoteEntry(server: Pick<Server, 'root'>, name: string, entry: string): string {
  const read = spawnSync(
    'python3',
    [
      '-c',
      'import sys,zipfile;print(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode(),end="")',
      path.join(server.root, name),
      entry,
    ],
    { encoding: 'utf8' },
  );
  if (read.status !== 0) throw new Error(read.stderr);
  return read.stdout;
}

const httpsMissing = missing(NGINX);
describe.skipIf(httpsMissing !== '')(
  `an archive over HTTPS (nginx)${httpsMissing ? ` (skipped: ${httpsMissing})` : ''}`,
  () => {
    let server: Server & { ca: string };
    let box: ReturnType<typeof sandbox>;
    beforeAll(async () => {
      server = await startHttps();
      place(server, 'a.zip');
      place(server, 'norange/a.zip');
    });
    afterAll(() => server?.stop());
    beforeEach(() => (box = sandbox()));
    afterEach(() => box.cleanup());
    const env = () => ({ ZIPFS_CA_FILE: server.ca });

    it('opens with a suffix range and the directory, and a read fetches about that entry', () => {
      server.mark();
      const opened = box.run(['open', `${server.url}a.zip`, '--json'], { env: env() });
      expect(opened.code).toBe(0);
      expect(opened.json.file_count).toBe(30);
      expect(opened.json.not_extracted).toBe(30);
      const atOpen = server.requests();
      expect(atOpen.length).toBeLessThanOrEqual(2);
      expect(atOpen.every((r) => r.status === 206 && r.range !== '-')).toBe(true);
      const directory = 30 * (46 + 'data/e00.txt'.length) + 22;
      expect(atOpen.reduce((sum, r) => sum + r.sent, 0)).toBeLessThan(OPEN_TAIL + directory + 4096);

      server.mark();
      const read = box.run(['read', 'data/e03.txt'], { env: env() });
      expect(read.code).toBe(0);
      expect(read.stdout.startsWith('entry 3\n')).toBe(true);
      const atRead = server.requests();
      expect(atRead.length).toBe(1);
      expect(atRead[0]!.ifMatch).not.toBe('-'); // on the condition that the archive is the one opened
      expect(atRead[0]!.sent).toBeGreaterThan(ENTRY_BYTES);
      expect(atRead[0]!.sent).toBeLessThan(ENTRY_BYTES + 4096);

      // Read again: nothing more goes over the wire. Grep reads what it has not yet, and finds the needle.
      server.mark();
      expect(box.run(['read', 'data/e03.txt'], { env: env() }).code).toBe(0);
      expect(server.requests()).toStrictEqual([]);
      const grep = box.run(['grep', 'needle'], { env: env() });
      expect(grep.stdout).toContain('data/e12.txt:');
      expect(server.requests().length).toBeLessThanOrEqual(2); // the entries before the tail, coalesced
    });

    it('opens an archive whose directory is larger than the tail read in two range requests', () => {
      const many = Array.from({ length: 4000 }, (_, i) => ({
        name: `many/file-${String(i).padStart(5, '0')}.txt`,
        data: `${i}\n`,
        method: 0 as const,
        unixMode: 0o100644,
      }));
      place(server, 'many.zip', rawZip(many));
      server.mark();
      const opened = box.run(['open', `${server.url}many.zip`, '--json'], { env: env() });
      expect(opened.json.file_count).toBe(4000);
      const ranges = server.requests();
      expect(ranges.map((r) => r.status)).toStrictEqual([206, 206]);
      expect(ranges[1]!.ifMatch).not.toBe('-');
      const size = fs.statSync(path.join(server.root, 'many.zip')).size;
      expect(ranges.reduce((sum, r) => sum + r.sent, 0)).toBeLessThan(size + 2048); // the directory is most of it
      expect(box.run(['read', 'many/file-01234.txt'], { env: env() }).stdout).toBe('1234\n');
    });

    it('diffs, restores and reads the zip version of entries never fetched', () => {
      place(server, 'b.zip');
      expect(box.run(['open', `${server.url}b.zip`], { env: env() }).code).toBe(0);
      expect(box.run(['delete', 'data/e09.txt'], { env: env() }).code).toBe(0);
      const diff = box.run(['diff', '--json'], { env: env() });
      expect(diff.code).toBe(0);
      expect(diff.stdout).toContain('data/e09.txt');
      const zipSide = box.run(['read', 'data/e10.txt', '--from', 'zip'], { env: env() });
      expect(zipSide.stdout.startsWith('entry 10\n')).toBe(true);
      expect(box.run(['restore', 'data/e09.txt'], { env: env() }).code).toBe(0);
      expect(box.run(['read', 'data/e09.txt'], { env: env() }).stdout.startsWith('entry 9\n')).toBe(true);
      // Closed, the session takes its mirror of the archive with it (the mirror and its record of ranges).
      expect(fs.readdirSync(path.join(box.home, 'remote')).length).toBe(2);
      expect(box.run(['close', '--force'], { env: env() }).code).toBe(0);
      expect(fs.readdirSync(path.join(box.home, 'remote'))).toStrictEqual([]);
    });

    it('refuses to mix versions: an archive replaced on the server after open is a conflict on the next read', () => {
      place(server, 'c.zip');
      expect(box.run(['open', `${server.url}c.zip`], { env: env() }).code).toBe(0);
      place(server, 'c.zip', rawZip(entries(31)));
      const read = box.run(['read', 'data/e04.txt', '--json'], { env: env() });
      expect(read.json.error.code).toBe('CONFLICT_DETECTED');
      expect(read.json.error.message).toContain('changed on the server');
    });

    it('checks the certificate: without the test CA the open fails, and says nothing secret', () => {
      const opened = box.run(['open', `${server.url}a.zip`, '--json'], { env: { ZIPFS_HTTP_TOKEN: 'tok-123-secret' } });
      expect(opened.code).not.toBe(0);
      expect(opened.json.error.code).toBe('ZIP_NOT_FOUND');
      expect(opened.stdout + opened.stderr).not.toContain('tok-123-secret');
    });

    it('follows no redirect (credentials go only where they are sent), and says so', () => {
      server.mark();
      const moved = box.run(['open', `${server.url}moved.zip`, '--json'], {
        env: { ...env(), ZIPFS_HTTP_TOKEN: 'tok-x' },
      });
      expect(moved.json.error.code).toBe('ZIP_NOT_FOUND');
      expect(moved.json.error.message).toContain('redirects');
      expect(server.requests().map((r) => [r.path, r.status])).toStrictEqual([['/moved.zip', 302]]);
    });

    it('refuses a server that ignores ranges, naming download, which fetches it whole', () => {
      const lazy = box.run(['open', `${server.url}norange/a.zip`, '--json'], { env: env() });
      expect(lazy.code).not.toBe(0);
      expect(lazy.json.error.message).toContain('download');
      const whole = box.run(['open', `${server.url}norange/a.zip`, '--download', '--json'], { env: env() });
      expect(whole.code).toBe(0);
      expect(whole.json.file_count).toBe(30);
      expect(box.run(['read', 'data/e12.txt'], { env: env() }).stdout).toContain('the needle is here');
    });
  },
);

const davMissing = missing(APACHE, HTPASSWD);
const USER = 'agent';
const PASSWORD = 'pw-Zq81-never-shown';
describe.skipIf(davMissing !== '')(
  `an archive on WebDAV (Apache mod_dav)${davMissing ? ` (skipped: ${davMissing})` : ''}`,
  () => {
    let server: Server;
    let box: ReturnType<typeof sandbox>;
    beforeAll(async () => {
      server = await startWebdav({ user: USER, password: PASSWORD });
    });
    afterAll(() => server?.stop());
    beforeEach(() => (box = sandbox()));
    afterEach(() => box.cleanup());
    const env = { ZIPFS_HTTP_USER: USER, ZIPFS_HTTP_PASSWORD: PASSWORD };

    it('syncs an edit with If-Match, keeps the old version as .bak, and never shows the password', () => {
      place(server, 'edit.zip');
      const url = `${server.url}edit.zip`;
      const runs = [box.run(['open', url], { env })];
      expect(runs[0]!.code).toBe(0);
      runs.push(box.run(['write', 'data/e01.txt'], { env, stdin: 'changed by an agent\n' }));
      server.mark();
      runs.push(box.run(['sync', '--json'], { env }));
      const synced = runs.at(-1)!;
      expect(synced.json.synced).toBe(true);
      expect(synced.json.bytes_sent).toBeGreaterThan(0);
      expect(synced.json.backup_path).toBe(`${url}.bak`);
      const put = server.requests().find((r) => r.method === 'PUT');
      expect(put?.ifMatch).toContain('"'); // the ETag read at open
      expect(remoteEntry(server, 'edit.zip', 'data/e01.txt')).toBe('changed by an agent\n');
      expect(remoteEntry(server, 'edit.zip.bak', 'data/e01.txt')).toStartWith('entry 1\n');
      // Without credentials: refused, and the answer says where they go.
      const refused = box.run(['open', url, '--new', '--json']);
      expect(refused.json.error.code).toBe('PERMISSION_DENIED');
      expect(refused.json.error.message).toContain('ZIPFS_HTTP_USER');
      // A password in the URL is refused before any request, and not repeated.
      const inUrl = box.run(['open', url.replace('//', `//${USER}:${PASSWORD}@`), '--new', '--json']);
      expect(inUrl.json.error.code).toBe('INVALID_INPUT');
      runs.push(refused, inUrl);
      for (const run of runs) expect(run.stdout + run.stderr).not.toContain(PASSWORD);
      const files = fs.readdirSync(box.home, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
      for (const file of files) {
        const text = fs.readFileSync(path.join(file.parentPath, file.name)).toString('latin1');
        expect(text.includes(PASSWORD) || text.includes(Buffer.from(`${USER}:${PASSWORD}`).toString('base64'))).toBe(
          false,
        );
      }
    });

    it('syncs an edit, a move and a delete of entries never extracted, copying the rest from the mirror', () => {
      place(server, 'changes.zip');
      const url = `${server.url}changes.zip`;
      expect(box.run(['open', url], { env }).code).toBe(0);
      expect(box.run(['edit', 'data/e03.txt', '--old', 'entry 3\n', '--new', 'entry three\n'], { env }).code).toBe(0);
      expect(box.run(['move', 'data/e04.txt', 'moved/e04.txt'], { env }).code).toBe(0);
      expect(box.run(['delete', 'data/e05.txt'], { env }).code).toBe(0);
      const synced = box.run(['sync', '--json'], { env }).json;
      expect(synced).toMatchObject({ synced: true, files_modified: 1, files_deleted: 1, files_renamed: 1 });
      expect(remoteEntry(server, 'changes.zip', 'data/e03.txt')).toStartWith('entry three\n');
      expect(remoteEntry(server, 'changes.zip', 'moved/e04.txt')).toBe(ENTRIES[4]!.data as string);
      expect(remoteEntry(server, 'changes.zip', 'data/e29.txt')).toBe(ENTRIES[29]!.data as string);
      expect(() => remoteEntry(server, 'changes.zip', 'data/e05.txt')).toThrow();
      expect(box.run(['inspect', url, '--json'], { env }).json.error.code).toBe('INVALID_INPUT');
    });

    it('opens with download as an eager session (every entry extracted) and syncs it back', () => {
      place(server, 'eager.zip');
      const opened = box.run(['open', `${server.url}eager.zip`, '--download', '--json'], { env }).json;
      expect(opened.not_extracted).toBeUndefined();
      expect(opened.extracted_size_bytes).toBeGreaterThan(30 * ENTRY_BYTES);
      expect(box.run(['write', 'data/e00.txt'], { env, stdin: 'eager\n' }).code).toBe(0);
      expect(box.run(['sync', '--json'], { env }).json.synced).toBe(true);
      expect(remoteEntry(server, 'eager.zip', 'data/e00.txt')).toBe('eager\n');
    });

    it('opens an archive written this second (Apache gives it only a weak ETag, which no If-Match matches)', () => {
      fs.writeFileSync(path.join(server.root, 'fresh.zip'), ARCHIVE);
      if (process.getuid?.() === 0) spawnSync('chown', ['-R', 'www-data:www-data', server.root]);
      const opened = box.run(['open', `${server.url}fresh.zip`, '--json'], { env });
      expect(opened.json.file_count).toBe(30);
      expect(box.run(['read', 'data/e02.txt'], { env }).stdout.startsWith('entry 2\n')).toBe(true);
    });

    it('two data folders syncing the same archive at once lose nothing: one wins, the other merges', async () => {
      place(server, 'shared.zip');
      const url = `${server.url}shared.zip`;
      const other = sandbox();
      try {
        for (const [one, file] of [
          [box, 'data/e02.txt'],
          [other, 'data/e05.txt'],
        ] as const) {
          expect(one.run(['open', url], { env }).code).toBe(0);
          expect(one.run(['write', file], { env, stdin: `${file} from ${one.home}\n` }).code).toBe(0);
        }
        const both = await Promise.all(
          [box, other].map(async (one) => {
            const child = Bun.spawn([BINARY, 'sync', '--json'], {
              env: { ...process.env, ...env, ZIPFS_HOME: one.home, NO_COLOR: '1', ZIPFS_SESSION: '' },
              stdout: 'pipe',
              stderr: 'pipe',
            });
            const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
            return { one, answer: JSON.parse(out) };
          }),
        );
        const won = both.filter((b) => b.answer.synced === true);
        const lost = both.filter((b) => b.answer.error?.code === 'CONFLICT_DETECTED');
        expect([won.length, lost.length]).toStrictEqual([1, 1]);
        const merged = lost[0]!.one.run(['sync', '--merge', '--json'], { env });
        expect(merged.json.synced).toBe(true);
        expect(remoteEntry(server, 'shared.zip', 'data/e02.txt')).toBe(`data/e02.txt from ${box.home}\n`);
        expect(remoteEntry(server, 'shared.zip', 'data/e05.txt')).toBe(`data/e05.txt from ${other.home}\n`);
        // The winner's next sync takes the merge in: its session is then the archive on the server.
        expect(won[0]!.one.run(['sync', '--merge', '--json'], { env }).json.synced).toBe(true);
        expect(won[0]!.one.run(['status', '--json'], { env }).code).toBe(0);
      } finally {
        other.cleanup();
      }
    });

    it('works over MCP: open, read, grep, write and sync, credentials from the environment', async () => {
      place(server, 'mcp.zip');
      // A URL root is what lets an MCP client reach the server: without it the open is refused (issue 33).
      const denied = await connect(box.home, env);
      try {
        const refused = await call(denied.client, 'zipfs_open', { path: `${server.url}mcp.zip`, lazy: true });
        expect(refused.data.error.code).toBe('PERMISSION_DENIED');
        expect(refused.data.error.message).toContain('--root https://host/folder/');
      } finally {
        await denied.close();
      }
      const roots = [TEST_ROOTS.ZIPFS_ROOTS, server.url].join(path.delimiter);
      const mcp = await connect(box.home, { ...env, ZIPFS_ROOTS: roots });
      try {
        const opened = await call(mcp.client, 'zipfs_open', { path: `${server.url}mcp.zip`, lazy: true });
        expect(opened.isError).toBe(false);
        expect(opened.data.not_extracted).toBe(30);
        const read = await call(mcp.client, 'zipfs_read', { path: 'data/e07.txt' });
        expect(read.isError).toBe(false);
        expect(JSON.stringify(read.data)).toContain('entry 7');
        const grep = await call(mcp.client, 'zipfs_grep', { pattern: 'needle' });
        expect(JSON.stringify(grep.data)).toContain('data/e12.txt');
        const wrote = await call(mcp.client, 'zipfs_write', { path: 'data/e07.txt', content: 'over MCP\n' });
        expect(wrote.isError).toBe(false);
        const synced = await call(mcp.client, 'zipfs_sync', {});
        expect(synced.data).toMatchObject({ synced: true, files_modified: 1 });
        expect(synced.data.bytes_sent).toBeGreaterThan(0);
        expect(remoteEntry(server, 'mcp.zip', 'data/e07.txt')).toBe('over MCP\n');
        expect(mcp.stderr()).not.toContain(PASSWORD);
      } finally {
        await mcp.close();
      }
    });
  },
);

describe('a server that never answers', () => {
  it('is given up after bounded tries, each bounded by ZIPFS_REMOTE_TIMEOUT_MS, and the answer says so', async () => {
    // The kernel accepts the connection (this process is blocked in spawnSync meanwhile); nothing ever answers.
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const box = sandbox();
    try {
      const { port } = silent.address() as net.AddressInfo;
      const opened = box.run(['open', `http://127.0.0.1:${port}/a.zip`, '--json'], {
        env: { ZIPFS_REMOTE_TIMEOUT_MS: '300' },
      });
      expect(opened.json.error.code).toBe('ZIP_NOT_FOUND');
      expect(opened.json.error.message).toContain('no answer within 300 ms, 3 tries');
      expect(fs.existsSync(path.join(box.home, 'workspaces'))).toBe(false);
    } finally {
      silent.close();
      box.cleanup();
    }
  });
});
