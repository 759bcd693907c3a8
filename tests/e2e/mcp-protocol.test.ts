/**
 * zipfs mcp at the wire, where agents push it: messages too large in either
 * direction, lines that are not JSON-RPC, parallel calls on one session,
 * argument errors, and read encodings, checked byte by byte over raw JSON-RPC
 * (and through the SDK's Client where the queueing is the point).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { initialize, initialized, rawSession } from '../helpers/raw-mcp.ts';
import { waitFor } from '../helpers/wait-for.ts';

let box: ReturnType<typeof sandbox>;
let root: string;
beforeEach(() => {
  box = sandbox();
  root = box.run(['open', writeZip(box.dir, 'reports.zip', reportsZip()), '--json']).json.workspace_path;
});
afterEach(() => box.cleanup());

const tool = (id: number, name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const ping = (id: number) => ({ jsonrpc: '2.0', id, method: 'ping' });
const errorOf = (response: any) => JSON.parse(response.result.content[0].text).error;

describe('messages that are not JSON-RPC', () => {
  it('answers a line that is not JSON with -32700 and a batch with -32600, and keeps serving', async () => {
    const { byId, lines } = await rawSession(
      box.home,
      [
        initialize(1, '2025-11-25'),
        initialized,
        '{"jsonrpc": "2.0", "id": 5, oops',
        [ping(6), ping(7)],
        { hello: 'world' },
        ping(2),
      ],
      [2],
    );
    const errors = lines.map((l) => JSON.parse(l)).filter((m) => m.error);
    expect(errors.map((m) => m.error.code)).toStrictEqual([-32700, -32600, -32600]);
    expect(errors[0].error.message).toContain('not JSON');
    expect(errors[1].error.message).toContain('Batches are not supported');
    expect(byId.get(2).result).toStrictEqual({});
  });
});

describe('message size bounds', () => {
  it('answers a 12 MiB write with an error naming its id and the way to write in pieces, then serves the pieces', async () => {
    const piece = 'x'.repeat(6 << 20);
    const { byId, exitCode } = await rawSession(
      box.home,
      [
        initialize(1, '2025-11-25'),
        initialized,
        tool(3, 'zipfs_write', { path: 'big.txt', content: piece + piece }),
        ping(4),
        tool(5, 'zipfs_write', { path: 'big.txt', content: piece }),
        tool(6, 'zipfs_write', { path: 'big.txt', content: piece, append: true }),
      ],
      [3, 4, 5, 6],
    );
    expect(byId.get(3).error.code).toBe(-32600);
    expect(byId.get(3).error.message).toMatch(/12\.0 MiB, over the 8\.0 MiB.*append: true/);
    expect(byId.get(4).result).toStrictEqual({});
    expect(byId.get(5).result.structuredContent).toStrictEqual({ written: true, size_bytes: 6 << 20 });
    expect(byId.get(6).result.structuredContent).toStrictEqual({ written: true, size_bytes: 12 << 20 });
    expect(fs.statSync(path.join(root, 'big.txt')).size).toBe(12 << 20);
    expect(exitCode).toBe(0);
  });

  it.each([
    ['text', 'big.txt', Buffer.from('"quoted\\\\text"\n'.repeat(440_000))],
    ['binary', 'big.bin', Buffer.from(Array.from({ length: 6 << 20 }, (_, i) => (i * 13) & 0xff))],
  ])(
    'keeps a read of a 6 MiB %s file under 100,000 characters per answer, saying what remains',
    async (_kind, name, content) => {
      fs.writeFileSync(path.join(root, name), content);
      const { lines, byId } = await rawSession(
        box.home,
        [initialize(1, '2025-11-25'), initialized, tool(2, 'zipfs_read', { path: name, limit: content.length })],
        [2],
      );
      const answer = lines.find((l) => l.startsWith('{"result"') || l.includes('"id":2'))!;
      expect(answer.length).toBeLessThanOrEqual(100_000); // the whole message, envelope and all (issue 21: 25,000 tokens)
      const page = byId.get(2).result.structuredContent;
      expect(page.bytes_read).toBeGreaterThan(16_384); // a useful page even of content JSON escapes twice
      expect([page.remaining_bytes, page.next_offset]).toStrictEqual([
        content.length - page.bytes_read,
        page.bytes_read,
      ]);
    },
  );
});

describe('parallel calls on one session in one server', () => {
  it('queue in arrival order: ten writes at once all succeed, the last one sent wins', async () => {
    const mcp = await connect(box.home, { ZIPFS_LOCK_WAIT_MS: '0' }); // queueing, not waiting on another process
    try {
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          call(mcp.client, 'zipfs_write', { path: 'same.txt', content: `write ${i}` }),
        ),
      );
      expect(results.filter((r) => r.isError)).toStrictEqual([]);
      expect(fs.readFileSync(path.join(root, 'same.txt'), 'utf8')).toBe('write 9');
      const mixed = await Promise.all([
        call(mcp.client, 'zipfs_write', { path: 'a.txt', content: 'a' }),
        call(mcp.client, 'zipfs_sync'),
        call(mcp.client, 'zipfs_delete', { path: 'a.txt' }),
      ]);
      expect(mixed.map((r) => r.isError)).toStrictEqual([false, false, false]);
      expect(mixed[1]!.data.files_added).toBe(2);
    } finally {
      await mcp.close();
    }
  });
});

describe('cancellation', () => {
  it('stops a sync before the rename: no temporary, the zip as it was, the changes still there to sync', async () => {
    // 3 GiB of zeros (sparse: no disk) streams through the deflater for a second or more after the temporary
    // appears, so the cancel always lands mid-write. (96 MiB of random bytes was stored, not deflated,
    // and the sync sometimes finished before the cancel arrived.) The ratio limits are raised: open
    // would call such a file a bomb, and sync refuses what open would refuse.
    const big = path.join(root, 'big.bin');
    fs.writeFileSync(big, '');
    fs.truncateSync(big, 3 * 2 ** 30);
    const zip = path.join(box.dir, 'reports.zip');
    const before = fs.readFileSync(zip);
    const mcp = await connect(box.home, { ZIPFS_MAX_RATIO: '100000', ZIPFS_MAX_ENTRY_RATIO: '100000' });
    try {
      const controller = new AbortController();
      const pending = mcp.client
        .callTool({ name: 'zipfs_sync', arguments: {} }, undefined, { signal: controller.signal })
        .catch((error: Error) => error);
      const beside = () => fs.readdirSync(box.dir).filter((n) => n.endsWith('.tmp'));
      await waitFor(() => beside().length > 0, { what: "the sync's temporary", timeoutMs: 20_000 });
      expect(beside()).toHaveLength(1);
      controller.abort();
      expect(await pending).toBeInstanceOf(Error);
      await waitFor(() => beside().length === 0, {
        what: 'the cancelled sync to remove its temporary',
        intervalMs: 20,
      });
      expect(fs.readFileSync(zip).equals(before)).toBe(true);
      expect((await call(mcp.client, 'zipfs_status')).data.added).toStrictEqual(['big.bin']);
      expect((await call(mcp.client, 'zipfs_sync')).data).toMatchObject({ synced: true, files_added: 1 });
    } finally {
      await mcp.close();
    }
  }, 60_000);
});

describe('argument errors', () => {
  it('say an argument is missing, quote at most a prefix of a huge one, and do not double the JSON-RPC prefix', async () => {
    const hugePath = 'p'.repeat(1 << 20);
    const { byId } = await rawSession(
      box.home,
      [
        initialize(1, '2025-11-25'),
        initialized,
        tool(2, 'zipfs_read', {}),
        tool(3, 'zipfs_read', { path: hugePath }),
        tool(4, 'zipfs_read', { path: 'x', encoding: 'e'.repeat(100_000) }),
        tool(5, 'zipfs_nope', {}),
        tool(6, 'zipfs_read', { path: 'x', bogus: true }),
      ],
      [2, 3, 4, 5, 6],
    );
    expect(errorOf(byId.get(2))).toMatchObject({ code: 'INVALID_INPUT' });
    expect(errorOf(byId.get(2)).message).toContain('argument "path" is missing');
    for (const id of [3, 4]) expect(JSON.stringify(byId.get(id)).length).toBeLessThan(2000);
    expect(errorOf(byId.get(3)).code).toBe('PATH_NOT_FOUND');
    expect(errorOf(byId.get(3)).message).toContain('(1048576 characters)');
    expect(byId.get(5).error.code).toBe(-32602);
    expect(byId.get(5).error.message).toMatch(/^Unknown tool "zipfs_nope"/);
    expect(errorOf(byId.get(6)).message).toContain('unknown argument "bogus"');
  });

  it('speak each surface: --force on the CLI, force: true over MCP', async () => {
    fs.appendFileSync(path.join(box.dir, 'reports.zip'), 'changed elsewhere');
    box.run(['write', 'x.txt', 'x']);
    const cli = box.run(['sync', '--json']).json.error.message;
    expect(cli).toContain('Pass --merge to keep those changes');
    expect(cli).toContain('pass --force to replace');
    expect(cli).not.toContain('force: true');
    const { byId } = await rawSession(
      box.home,
      [initialize(1, '2025-11-25'), initialized, tool(2, 'zipfs_sync', {})],
      [2],
    );
    expect(errorOf(byId.get(2)).message).toContain('pass force: true to replace');
    expect(box.run(['delete', 'data', '--json']).json.error.message).toContain('pass --recursive');
  });
});

describe('read encodings, decided once per file', () => {
  const read = async (args: Record<string, unknown>[]) => {
    const { byId } = await rawSession(
      box.home,
      [initialize(1, '2025-11-25'), initialized, ...args.map((a, i) => tool(i + 2, 'zipfs_read', a))],
      args.map((_, i) => i + 2),
    );
    return args.map((_, i) => byId.get(i + 2).result.structuredContent);
  };

  it('gives a Latin-1 file as base64 on every page, and a file with NUL bytes as base64 as grep skips it', async () => {
    fs.writeFileSync(path.join(root, 'latin1.txt'), Buffer.from('abc caf\xe9 na\xefve\n', 'latin1'));
    fs.writeFileSync(path.join(root, 'nul.txt'), 'text\0with a NUL\n');
    const [head, whole, nul] = await read([
      { path: 'latin1.txt', limit: 3 },
      { path: 'latin1.txt' },
      { path: 'nul.txt' },
    ]);
    expect([head.encoding, whole.encoding, nul.encoding]).toStrictEqual(['base64', 'base64', 'base64']);
    expect(Buffer.from(head.content, 'base64').toString('latin1')).toBe('abc');
    expect(box.run(['grep', 'NUL', '--json']).json.skipped_binary).toBeGreaterThanOrEqual(1);
  });

  it('starts and ends text pages on character boundaries, reporting the real offset, and never returns an empty page', async () => {
    fs.writeFileSync(path.join(root, 'utf8.txt'), 'hé€😀z');
    const [inside, cut, tiny] = await read([
      { path: 'utf8.txt', offset: 2 },
      { path: 'utf8.txt', limit: 4 },
      { path: 'utf8.txt', offset: 6, limit: 1 },
    ]);
    expect(inside).toMatchObject({ encoding: 'utf-8', offset: 3, content: '€😀z' });
    expect(cut).toMatchObject({ encoding: 'utf-8', offset: 0, content: 'hé', bytes_read: 3 });
    expect(tiny).toMatchObject({ encoding: 'utf-8', offset: 6, content: '😀', bytes_read: 4 });
  });
});
