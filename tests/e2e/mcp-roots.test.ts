/**
 * The MCP server's trust boundary (issue 33), through the compiled binary with the SDK's own Client
 * over stdio and Streamable HTTP: zips are opened, inspected, created and synced only inside the
 * allowed roots (--root, ZIPFS_ROOTS, the client's MCP roots, changed mid-session), judged where the
 * file really is (`..`, a linked folder, a hard link, another case); and --read-only serves only
 * the tools that change nothing.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ListRootsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { call } from '../helpers/mcp-client.ts';
import { startHttpServer } from '../helpers/http-server.ts';
import { casefoldAvailable, mountCasefold, type CasefoldMount } from '../helpers/casefold-mount.ts';
import { COMMANDS } from '../../src/table/registry.ts';

type Kind = 'stdio' | 'http';

interface AgentOptions {
  /** Words after `zipfs mcp` (before --http's address). */
  args?: string[];
  /** ZIPFS_ROOTS; '' (the default here) for none, so only what the test gives counts. */
  envRoots?: string;
  /** The client's MCP roots; absent: the client does not declare the roots capability. */
  roots?: string[];
  /** The server's working folder (stdio). */
  cwd?: string;
}

interface Agent {
  client: Client;
  /** Replaces the client's roots and tells the server (notifications/roots/list_changed). */
  setRoots(roots: string[]): Promise<void>;
}

let box: ReturnType<typeof sandbox>;
const closers: (() => unknown)[] = [];
beforeEach(() => (box = sandbox()));
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
  box.cleanup();
});

async function agent(kind: Kind, options: AgentOptions = {}): Promise<Agent> {
  let roots = options.roots ?? [];
  const client = new Client(
    { name: 'zipfs-roots-tests', version: '1' },
    options.roots ? { capabilities: { roots: { listChanged: true } } } : {},
  );
  if (options.roots)
    client.setRequestHandler(ListRootsRequestSchema, async () => ({
      roots: roots.map((root) => ({ uri: pathToFileURL(root).href, name: path.basename(root) })),
    }));
  const env = { ZIPFS_HOME: box.home, ZIPFS_ROOTS: options.envRoots ?? '' };
  if (kind === 'stdio') {
    await client.connect(
      new StdioClientTransport({
        command: BINARY,
        args: ['mcp', ...(options.args ?? [])],
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
        cwd: options.cwd,
        stderr: 'ignore',
      }),
    );
  } else {
    const server = await startHttpServer(box.home, ['0', ...(options.args ?? [])], env);
    closers.push(() => server.stop());
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
  }
  closers.unshift(() => client.close());
  return {
    client,
    async setRoots(next) {
      roots = next;
      await client.sendRootsListChanged();
    },
  };
}

/** The sandbox's layout: `work` (the root) with in.zip, `outside` with secret.zip, and ways from one to the other. */
function layout() {
  const work = path.join(box.dir, 'work');
  const outside = path.join(box.dir, 'outside');
  fs.mkdirSync(work);
  fs.mkdirSync(outside);
  const inside = writeZip(work, 'in.zip', reportsZip());
  const secret = writeZip(outside, 'secret.zip', reportsZip());
  fs.symlinkSync(outside, path.join(work, 'linked'));
  return { work, outside, inside, secret };
}

const denied = (result: { isError: boolean; data: any }) => {
  expect(result.isError).toBe(true);
  expect(result.data.error.code).toBe('PERMISSION_DENIED');
  return result.data.error.message as string;
};

describe.each(['stdio', 'http'] as const)('allowed roots over %s', (kind) => {
  it('opens, inspects, creates and syncs a zip inside the client roots as before', async () => {
    const { work, inside } = layout();
    const { client } = await agent(kind, { roots: [work] });
    expect((await call(client, 'zipfs_inspect', { path: inside })).data.total_entries).toBeGreaterThan(0);
    const opened = await call(client, 'zipfs_open', { path: inside });
    expect(opened.isError).toBe(false);
    await call(client, 'zipfs_write', { session: opened.data.name, path: 'new.txt', content: 'in' });
    expect((await call(client, 'zipfs_sync', { session: opened.data.name })).data.synced).toBe(true);
    const made = path.join(work, 'sub', 'made.zip');
    const created = await call(client, 'zipfs_open', { path: made, create: true });
    await call(client, 'zipfs_write', { session: created.data.name, path: 'a.txt', content: 'a' });
    expect((await call(client, 'zipfs_sync', { session: created.data.name })).data.synced).toBe(true);
    expect(fs.existsSync(made)).toBe(true);
    // Relative to the root through `..` that stays inside is inside.
    expect((await call(client, 'zipfs_inspect', { path: path.join(work, 'sub', '..', 'in.zip') })).isError).toBe(false);
  }, 60_000);

  it('refuses a zip outside, through .., a linked folder, a hard link or another case; creates nothing', async () => {
    const { work, outside, inside, secret } = layout();
    const sameName = path.join(box.dir, 'WORK'); // another folder on this case-sensitive disk
    fs.mkdirSync(sameName);
    const alias = path.join(outside, 'alias.zip');
    fs.linkSync(inside, alias); // the zip inside, by a name outside
    const { client } = await agent(kind, { roots: [work] });
    const ways = [
      secret,
      path.join(work, '..', 'outside', 'secret.zip'),
      path.join(work, 'linked', 'secret.zip'),
      alias,
      writeZip(sameName, 'other.zip', reportsZip()),
    ];
    for (const way of ways) {
      const message = denied(await call(client, 'zipfs_open', { path: way }));
      expect(message).toContain(fs.realpathSync(work));
      expect(message).toContain('--root');
      denied(await call(client, 'zipfs_inspect', { path: way }));
    }
    for (const fresh of [path.join(outside, 'new.zip'), path.join(work, 'linked', 'new.zip')]) {
      denied(await call(client, 'zipfs_open', { path: fresh, create: true }));
      expect(fs.existsSync(fresh)).toBe(false);
    }
    // A link inside to a zip outside is outside too.
    fs.symlinkSync(secret, path.join(work, 'secret-link.zip'));
    denied(await call(client, 'zipfs_open', { path: path.join(work, 'secret-link.zip') }));
    expect((await call(client, 'zipfs_sessions')).data.sessions).toStrictEqual([]);
  }, 60_000);

  it('cannot sync, read or list a session the CLI opened outside the roots, and leaves its zip as it was', async () => {
    const { work, secret } = layout();
    expect(box.run(['open', secret, '--json']).json.name).toBe('secret');
    expect(box.run(['write', '-s', 'secret', 'x.txt', 'changed']).code).toBe(0);
    const before = fs.readFileSync(secret);
    const { client } = await agent(kind, { roots: [work] });
    for (const [tool, args] of [
      ['zipfs_sync', { session: 'secret' }],
      ['zipfs_read', { session: 'secret', path: 'README.txt' }],
      ['zipfs_status', {}],
      ['zipfs_close', { session: 'secret', sync: true }],
    ] as const)
      expect(denied(await call(client, tool, args))).toContain('Session "secret"');
    expect((await call(client, 'zipfs_sessions')).data.sessions).toStrictEqual([]);
    expect((await call(client, 'zipfs_prune', { all: true, discard_changes: true })).data.pruned).toStrictEqual([]);
    expect(fs.readFileSync(secret)).toStrictEqual(before);
  }, 60_000);

  it('makes the sessions of a root the client removes unreachable, reachable again when it is back', async () => {
    const { work, outside, inside, secret } = layout();
    const { client, setRoots } = await agent(kind, { roots: [work, outside] });
    const opened = await call(client, 'zipfs_open', { path: secret });
    expect(opened.isError).toBe(false);
    expect((await call(client, 'zipfs_open', { path: inside })).isError).toBe(false);
    await call(client, 'zipfs_write', { session: 'secret', path: 'x.txt', content: 'x' });
    await setRoots([work]);
    const before = fs.readFileSync(secret);
    expect(denied(await call(client, 'zipfs_sync', { session: 'secret' }))).toContain('Session "secret"');
    denied(await call(client, 'zipfs_read', { session: 'secret', path: 'x.txt' }));
    denied(await call(client, 'zipfs_open', { path: secret }));
    expect((await call(client, 'zipfs_sessions')).data.sessions.map((s: any) => s.name)).toStrictEqual(['in']);
    expect((await call(client, 'zipfs_read', { session: 'in', path: 'README.txt' })).isError).toBe(false);
    expect(fs.readFileSync(secret)).toStrictEqual(before);
    await setRoots([work, outside]);
    expect((await call(client, 'zipfs_sync', { session: 'secret' })).data.synced).toBe(true);
  }, 60_000);

  it('takes --root and ZIPFS_ROOTS when the client sends no roots', async () => {
    const { work, outside, inside, secret } = layout();
    const other = fs.mkdtempSync(path.join(box.dir, 'other-'));
    const third = writeZip(other, 'third.zip', reportsZip());
    for (const options of [
      { args: ['--root', work, `--root=${other}`] },
      { envRoots: [work, other].join(path.delimiter) },
      { args: ['--root', work], envRoots: other },
    ]) {
      const { client } = await agent(kind, options);
      expect((await call(client, 'zipfs_inspect', { path: inside })).isError).toBe(false);
      expect((await call(client, 'zipfs_inspect', { path: third })).isError).toBe(false);
      denied(await call(client, 'zipfs_inspect', { path: secret }));
      denied(await call(client, 'zipfs_open', { path: path.join(outside, 'new.zip'), create: true }));
    }
  }, 60_000);

  it('adds the client roots to --root: both are allowed, and no other folder', async () => {
    const { work, outside, inside, secret } = layout();
    const third = writeZip(fs.mkdtempSync(path.join(box.dir, 'third-')), 'third.zip', reportsZip());
    const { client } = await agent(kind, { args: ['--root', outside], roots: [work] });
    expect((await call(client, 'zipfs_inspect', { path: inside })).isError).toBe(false);
    expect((await call(client, 'zipfs_inspect', { path: secret })).isError).toBe(false);
    denied(await call(client, 'zipfs_inspect', { path: third }));
  }, 60_000);

  it('judges a hard link by its path: one inside is used; sync replaces it, the file outside stays', async () => {
    const { work, secret } = layout();
    const hard = path.join(work, 'hard.zip');
    fs.linkSync(secret, hard);
    const before = fs.readFileSync(secret);
    const { client } = await agent(kind, { roots: [work] });
    expect((await call(client, 'zipfs_open', { path: hard })).isError).toBe(false);
    await call(client, 'zipfs_write', { session: 'hard', path: 'x.txt', content: 'x' });
    expect((await call(client, 'zipfs_sync', { session: 'hard' })).data.synced).toBe(true);
    expect(fs.readFileSync(secret)).toStrictEqual(before);
    expect(fs.statSync(hard).ino).not.toBe(fs.statSync(secret).ino);
  }, 60_000);

  it('with --read-only lists only the tools that change nothing, and refuses every other', async () => {
    const { work, inside } = layout();
    const before = fs.readFileSync(inside);
    const { client } = await agent(kind, { args: ['--read-only'], roots: [work] });
    const listed = (await client.listTools()).tools;
    expect(client.getInstructions()).toContain('read-only');
    const expected = ['open', 'inspect', 'sessions', 'path', 'ls', 'tree', 'read', 'grep', 'status', 'diff', 'close'];
    expect(listed.map((t) => t.name).sort()).toStrictEqual(expected.map((name) => `zipfs_${name}`).sort());
    expect((await call(client, 'zipfs_open', { path: inside })).isError).toBe(false);
    expect((await call(client, 'zipfs_read', { path: 'README.txt' })).isError).toBe(false);
    expect((await call(client, 'zipfs_grep', { pattern: 'emea' })).isError).toBe(false);
    const changing = COMMANDS.filter((c) => !expected.includes(c.name));
    expect(changing.length).toBeGreaterThan(5);
    const args: Record<string, Record<string, unknown>> = {
      write: { path: 'w.txt', content: 'w' },
      edit: { path: 'README.txt', edits: [{ old_text: 'a', new_text: 'b' }] },
      mkdir: { path: 'd' },
      move: { from: 'README.txt', to: 'R.txt' },
      delete: { path: 'README.txt' },
      restore: { paths: ['README.txt'] },
      prune: { all: true },
    };
    for (const command of changing) {
      const message = denied(await call(client, `zipfs_${command.name}`, args[command.name] ?? {}));
      expect(message).toContain('--read-only');
    }
    denied(await call(client, 'zipfs_close', { sync: true }));
    denied(await call(client, 'zipfs_close', { force: true }));
    expect((await call(client, 'zipfs_read', { path: 'README.txt' })).isError).toBe(false);
    expect((await call(client, 'zipfs_status')).data.modified).toStrictEqual([]);
    expect((await call(client, 'zipfs_close')).data.closed).toBe(true);
    expect(fs.readFileSync(inside)).toStrictEqual(before);
  }, 60_000);
});

describe('the default root (stdio)', () => {
  it('is the working folder when neither --root, ZIPFS_ROOTS nor the client gives one', async () => {
    const { work, inside, secret } = layout();
    const { client } = await agent('stdio', { cwd: work });
    expect((await call(client, 'zipfs_inspect', { path: inside })).isError).toBe(false);
    expect((await call(client, 'zipfs_inspect', { path: 'in.zip' })).isError).toBe(false);
    expect(denied(await call(client, 'zipfs_inspect', { path: secret }))).toContain('working folder');
  }, 60_000);

  it('is none when the working folder is the home folder: a root must be given', async () => {
    const { inside } = layout();
    const { client } = await agent('stdio', { cwd: os.homedir() });
    expect(denied(await call(client, 'zipfs_inspect', { path: inside }))).toContain('too wide');
  }, 60_000);

  it('refuses to start on a --root that is not a folder', () => {
    const result = Bun.spawnSync([BINARY, 'mcp', '--root', path.join(box.dir, 'missing')], {
      env: { ...process.env, ZIPFS_HOME: box.home },
      stdin: 'ignore',
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr.toString()).toContain('is not a folder');
  });

  it('shows --root and --read-only in zipfs mcp --help', () => {
    const help = Bun.spawnSync([BINARY, 'mcp', '--help']).stdout.toString();
    expect(help).toContain('--root');
    expect(help).toContain('--read-only');
    expect(help).toContain('ZIPFS_ROOTS');
  });
});

const casefold = casefoldAvailable();
describe.skipIf(casefold.skip)(`allowed roots on a case-insensitive folder${casefold.why}`, () => {
  let mount: CasefoldMount | undefined;
  beforeAll(async () => {
    mount = await mountCasefold();
  });
  afterAll(() => mount?.unmount());

  it.each(['stdio', 'http'] as const)(
    'takes another spelling of a root as the root, and a folder differing only in case as another (%s)',
    async (kind) => {
      const backing = fs.mkdtempSync(path.join(mount!.backing, 'roots-'));
      const seen = path.join(mount!.path, path.basename(backing));
      // Stored side by side on the backing folder: Work and work are two folders; an exact name wins on the mount.
      for (const folder of ['Work', 'work', 'Docs']) fs.mkdirSync(path.join(backing, folder));
      writeZip(path.join(backing, 'Docs'), 'a.zip', reportsZip());
      writeZip(path.join(backing, 'work'), 'secret.zip', reportsZip());
      const { client } = await agent(kind, { roots: [path.join(seen, 'Work'), path.join(seen, 'Docs')] });
      expect((await call(client, 'zipfs_inspect', { path: path.join(seen, 'DOCS', 'a.zip') })).isError).toBe(false);
      denied(await call(client, 'zipfs_inspect', { path: path.join(seen, 'work', 'secret.zip') }));
      denied(await call(client, 'zipfs_open', { path: path.join(seen, 'work', 'new.zip'), create: true }));
    },
    60_000,
  );
});
