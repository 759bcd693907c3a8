/**
 * zipfs mcp --http: the tools over Streamable HTTP, for several agents at once,
 * through the SDK's own HTTP client, the official Python SDK, plain fetch for
 * the guards (Origin, Host, bearer token), and the official conformance suite
 * (@modelcontextprotocol/conformance, installed by .ci/run into .cache/conformance).
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { waitFor } from '../helpers/wait-for.ts';
import { startHttpServer } from '../helpers/http-server.ts';

const root = path.resolve(import.meta.dir, '../..');
const python = path.join(root, '.cache', 'py', 'bin', 'python');
const hasPythonSdk =
  fs.existsSync(python) && Bun.spawnSync([python, '-c', 'import mcp.client.streamable_http']).exitCode === 0;
const conformance = path.join(
  root,
  '.cache',
  'conformance',
  'node_modules',
  '@modelcontextprotocol',
  'conformance',
  'dist',
  'index.js',
);

let box: ReturnType<typeof sandbox>;
let servers: Bun.Subprocess[] = [];
beforeEach(() => (box = sandbox()));
afterEach(() => {
  for (const server of servers) server.kill();
  servers = [];
  box.cleanup();
});

/** Starts `zipfs mcp --http ...` and returns its URL once it listens; afterEach stops it. */
async function startServer(
  args: string[] = ['0'],
  env: Record<string, string> = {},
): Promise<{ url: string; process: Bun.Subprocess<'ignore', 'ignore', 'pipe'> }> {
  const server = await startHttpServer(box.home, args, env);
  servers.push(server.process);
  return server;
}

async function client(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const connected = new Client({ name: 'zipfs-http-test', version: '1' });
  await connected.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return connected;
}

const structured = async (
  c: Client,
  name: string,
  args: Record<string, unknown> = {},
  onprogress?: (p: { progress: number }) => void,
) =>
  (await c.callTool({ name, arguments: args }, undefined, onprogress ? { onprogress } : undefined))
    .structuredContent as any;

const initialize = {
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'fetch', version: '1' } },
};
const post = (url: string, headers: Record<string, string> = {}) =>
  fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(initialize),
  });

/** One request over a raw socket, so the Host header is exactly what is given (fetch would set its own). */
async function rawPost(
  url: string,
  host: string,
  body: object,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: Record<string, string>; text: string }> {
  const { hostname, port } = new URL(url);
  const payload = JSON.stringify(body);
  const lines = [
    `POST /mcp HTTP/1.1`,
    `Host: ${host}`,
    'Content-Type: application/json',
    'Accept: application/json, text/event-stream',
    `Content-Length: ${Buffer.byteLength(payload)}`,
    'Connection: close',
    ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`),
  ];
  const socket = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ''));
  socket.write(`${lines.join('\r\n')}\r\n\r\n${payload}`);
  let text = '';
  for await (const chunk of socket) text += chunk.toString();
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...headerLines] = head.split('\r\n');
  const parsed = Object.fromEntries(
    headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers: parsed, text: rest.join('\r\n\r\n') };
}

describe('zipfs mcp --http', () => {
  it(
    'runs a workflow through the SDK client: open, write, status, sync, with progress; health; DELETE ends the ' +
      'session',
    async () => {
      const { url } = await startServer();
      const zip = writeZip(box.dir, 'reports.zip', reportsZip());
      const c = await client(url);
      const progress: number[] = [];
      expect((await structured(c, 'zipfs_open', { path: zip }, (p) => progress.push(p.progress))).file_count).toBe(6);
      expect((await structured(c, 'zipfs_write', { path: 'notes.txt', content: 'over http' })).written).toBe(true);
      expect((await structured(c, 'zipfs_status')).added).toStrictEqual(['notes.txt']);
      expect((await structured(c, 'zipfs_sync', {}, (p) => progress.push(p.progress))).files_added).toBe(1);
      expect(progress.length).toBeGreaterThan(0);
      const health = await (await fetch(url.replace('/mcp', '/health'))).json();
      expect(health).toMatchObject({ status: 'ok', sessions: 1 });
      const transport = (c as unknown as { _transport: StreamableHTTPClientTransport })._transport;
      const sessionId = transport.sessionId!;
      await transport.terminateSession();
      const after = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-session-id': sessionId,
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'ping' }),
      });
      expect(after.status).toBe(404);
      expect(((await (await fetch(url.replace('/mcp', '/health'))).json()) as { sessions: number }).sessions).toBe(0);
    },
  );

  it('lets two clients work on one zip session at once: their writes queue, none is refused', async () => {
    const { url } = await startServer();
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    const [a, b] = await Promise.all([client(url), client(url)]);
    await structured(a, 'zipfs_open', { path: zip });
    const writes = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        (i % 2 ? a : b).callTool({ name: 'zipfs_write', arguments: { path: `p/${i}.txt`, content: `${i}` } }),
      ),
    );
    expect(writes.filter((w) => w.isError)).toStrictEqual([]);
    // and p/, a folder entry as the archive keeps them
    expect((await structured(b, 'zipfs_status')).added).toHaveLength(13);
  });

  it('refuses a foreign Origin or Host (403), and without the token on a non-loopback bind (401)', async () => {
    const { url } = await startServer();
    expect((await post(url, { origin: 'https://evil.example' })).status).toBe(403);
    expect((await post(url, { host: 'evil.example' })).status).toBe(403);
    expect((await post(url, { origin: 'http://localhost:3000' })).status).toBe(200);
    const huge = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ ...initialize, pad: 'x'.repeat(9 << 20) }),
    });
    expect(huge.status).toBe(413);

    const refused = Bun.spawnSync([BINARY, 'mcp', '--http', '0.0.0.0:0'], {
      env: { ...process.env, ZIPFS_HOME: box.home },
      timeout: 10_000,
    });
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr.toString()).toContain('--allow-remote');
    const rebindingName = Bun.spawnSync([BINARY, 'mcp', '--http', '127.0.0.1.nip.io:0'], {
      env: { ...process.env, ZIPFS_HOME: box.home },
      timeout: 10_000,
    });
    expect(rebindingName.exitCode).toBe(2); // a name is not a loopback address, however it looks
    expect(rebindingName.stderr.toString()).toContain('--allow-remote');
    const noToken = Bun.spawnSync([BINARY, 'mcp', '--http', '0.0.0.0:0', '--allow-remote'], {
      env: { ...process.env, ZIPFS_HOME: box.home, ZIPFS_MCP_TOKEN: '' },
      timeout: 10_000,
    });
    expect(noToken.stderr.toString()).toContain('ZIPFS_MCP_TOKEN');

    const remote = await startServer(['0.0.0.0:0', '--allow-remote'], { ZIPFS_MCP_TOKEN: 'a-long-random-secret' });
    const local = remote.url.replace('0.0.0.0', '127.0.0.1'); // traffic stays on this machine
    expect((await post(local)).status).toBe(401);
    expect((await post(local, { authorization: 'Bearer wrong' })).status).toBe(401);
    expect((await post(local, { authorization: 'Bearer a-long-random-secret' })).status).toBe(200);
  });

  it(
    'takes only loopback literals and localhost with its port as Host: a rebinding name is 403 at initialize and ' +
      'for a tools/call on a live session',
    async () => {
      const { url } = await startServer();
      const port = new URL(url).port;
      const call = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'zipfs_sessions', arguments: {} } };
      for (const legit of [
        `127.0.0.1:${port}`,
        `localhost:${port}`,
        `LOCALHOST:${port}`,
        `[::1]:${port}`,
        `127.1.2.3:${port}`,
      ]) {
        const answer = await rawPost(url, legit, initialize, { origin: `http://${legit}` });
        expect(answer.status, legit).toBe(200);
        const id = answer.headers['mcp-session-id']!;
        expect(
          (await rawPost(url, legit, call, { 'mcp-session-id': id, 'mcp-protocol-version': '2025-11-25' })).status,
          legit,
        ).toBe(200);
      }
      const session = (await rawPost(url, `127.0.0.1:${port}`, initialize)).headers['mcp-session-id']!;
      const hostile = [
        '127.evil.example',
        '127.0.0.1.nip.io',
        'localhost.evil.example',
        '127.1',
        '0x7f.0.0.1',
        '2130706433',
        '127.000.0.1',
        '127.0.0.256',
        'localhost.',
        'evil.example',
        '[::ffff:7f00:1]',
        '',
      ];
      for (const name of hostile) {
        for (const host of [`${name}:${port}`, name]) {
          const init = await rawPost(url, host, initialize, { origin: `http://${host}` });
          expect(init.status, host).toBe(403);
          expect(init.headers['mcp-session-id'], host).toBeUndefined();
          const served = await rawPost(url, host, call, {
            'mcp-session-id': session,
            'mcp-protocol-version': '2025-11-25',
          });
          expect(served.status, host).toBe(403);
          expect(served.text, host).not.toContain('"result"');
        }
      }
      // The right name on another port is another server, not this one.
      expect((await rawPost(url, `127.0.0.1:${Number(port) === 1 ? 2 : 1}`, initialize)).status).toBe(403);
      // A loopback Host with a foreign Origin that only looks local.
      for (const origin of ['http://127.evil.example', 'http://127.0.0.1.nip.io:3000', 'null']) {
        expect((await rawPost(url, `127.0.0.1:${port}`, initialize, { origin })).status, origin).toBe(403);
      }
    },
  );

  it('leaves the zip whole and no temporaries when SIGTERM stops it during a sync', async () => {
    const { url, process: server } = await startServer();
    const zip = writeZip(box.dir, 'reports.zip', reportsZip());
    const c = await client(url);
    const workspace = (await structured(c, 'zipfs_open', { path: zip })).workspace_path;
    fs.writeFileSync(path.join(workspace, 'big.bin'), crypto.randomBytes(96 << 20));
    const before = fs.readFileSync(zip);
    void c.callTool({ name: 'zipfs_sync', arguments: {} }).catch(() => undefined);
    const temporaries = () => fs.readdirSync(box.dir).filter((n) => n.endsWith('.tmp'));
    await waitFor(() => temporaries().length > 0, { what: "the sync's temporary", timeoutMs: 20_000 });
    expect(temporaries()).toHaveLength(1);
    server.kill('SIGTERM');
    expect(await server.exited).toBe(143);
    expect(temporaries()).toStrictEqual([]);
    expect(fs.readFileSync(zip).equals(before)).toBe(true);
  }, 60_000);

  it.skipIf(!hasPythonSdk)(
    `runs a workflow through the Python SDK's Streamable HTTP ` +
      `client${hasPythonSdk ? '' : ' (skipped: no .cache/py with mcp; .ci/run sets it up)'}`,
    async () => {
      const { url } = await startServer();
      const zip = writeZip(box.dir, 'reports.zip', reportsZip());
      const run = Bun.spawn([python, path.join(import.meta.dir, 'clients', 'python_http_workflow.py'), url, zip], {
        stdout: 'pipe',
        stderr: 'pipe',
      });
      const [out, code] = [await new Response(run.stdout).text(), await run.exited];
      expect(code).toBe(0);
      const seen = JSON.parse(out.trim().split('\n').at(-1)!);
      expect(seen.protocol).toBe('2025-11-25');
      expect(seen.opened.file_count).toBe(6);
      expect(seen.status.added).toStrictEqual(['from-python.txt']);
      expect(seen.synced).toMatchObject({ synced: true, files_added: 1 });
      expect(seen.progress.length).toBeGreaterThan(0);
    },
    60_000,
  );

  const whyNoSuite = fs.existsSync(conformance)
    ? ''
    : ' (skipped: .ci/run installs @modelcontextprotocol/conformance into .cache/conformance)';
  describe.skipIf(!fs.existsSync(conformance))(`the official conformance suite${whyNoSuite}`, () => {
    // The server scenarios that apply to a server with zipfs's tools. The others test capabilities
    // zipfs does not offer (logging, completion, resources, prompts, sampling, elicitation), tools of
    // the suite's own test server (tools-call-*, json-schema-2020-12), or resumable SSE streams
    // (server-sse-polling: zipfs keeps no event store).
    it.each(['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection', 'server-sse-multiple-streams'])(
      'passes %s',
      async (scenario) => {
        const { url } = await startServer();
        const run = Bun.spawn(
          [process.execPath, '--bun', conformance, 'server', '--url', url, '--scenario', scenario],
          { stdout: 'pipe', stderr: 'pipe', env: { ...process.env, NO_COLOR: '1' } },
        );
        const out = (await new Response(run.stdout).text()) + (await new Response(run.stderr).text());
        expect(await run.exited, out).toBe(0);
        expect(out).toMatch(/Passed: (\d+)\/\1, 0 failed/);
      },
      60_000,
    );
  });

  it('serves small archives as HTTP the same as stdio (a smoke check of the shared server code)', async () => {
    const { url } = await startServer();
    const zip = writeZip(box.dir, 'tiny.zip', rawZip([{ name: 'a.txt', data: 'a' }]));
    const c = await client(url);
    await structured(c, 'zipfs_open', { path: zip });
    expect((await structured(c, 'zipfs_read', { path: 'a.txt' })).content).toBe('a');
  });
});
