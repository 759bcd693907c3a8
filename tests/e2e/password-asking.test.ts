/**
 * Asking the user for an archive's password (issue 32, point 2), never through the model: the CLI prompts on a
 * terminal with echo off (driven here on a pseudo-terminal by util-linux `script`), and the MCP server asks by URL
 * elicitation (MCP 2025-11-25): a one-time page on loopback that the test client posts the password to, as a
 * browser would, over stdio and over Streamable HTTP. The password is in no answer, no log, no file.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox } from '../helpers/cli.ts';
import { call } from '../helpers/mcp-client.ts';
import { needs } from '../helpers/tools.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const PASSWORD = 'pw-Xk4!asked';
const SECRET_TEXT = 'the secret text\n'.repeat(10);
const BIG_BYTES = 9 * 1024 * 1024;
const BIG_LINE = 'a line of the big entry, compressed well enough\n'.padEnd(64, '.');

/**
 * report.zip: plain a.txt, and s.txt encrypted with ZipCrypto by `zip -P`; with `big`, big1.txt and big2.txt too
 * (9 MiB of text each, encrypted): open extracts the second on a worker thread, which must have the password.
 */
function reportZip(big = false): string {
  const src = path.join(box.dir, 'src');
  fs.mkdirSync(src, { recursive: true });
  fs.writeFileSync(path.join(src, 'a.txt'), 'plain text\n');
  fs.writeFileSync(path.join(src, 's.txt'), SECRET_TEXT);
  const bigs = big ? ['big1.txt', 'big2.txt'] : [];
  for (const name of bigs) fs.writeFileSync(path.join(src, name), BIG_LINE.repeat(BIG_BYTES / BIG_LINE.length));
  const zip = path.join(box.dir, 'report.zip');
  execFileSync('zip', ['-q', zip, 'a.txt'], { cwd: src });
  execFileSync('zip', ['-q', '-P', PASSWORD, zip, 's.txt', ...bigs], { cwd: src });
  return zip;
}

/** Every file under `dir`, as one string (no password may be in the data folder). */
function allBytes(dir: string): string {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .map((name) => path.join(dir, name))
    .filter((file) => fs.lstatSync(file).isFile())
    .map((file) => fs.readFileSync(file, 'latin1'))
    .join('\n');
}

/**
 * Runs `zipfs ARGS` on a pseudo-terminal; once the screen shows `prompt`, types `keys` (as a person would, after
 * the prompt: keys sent before it would be echoed by the terminal before zipfs turns echo off). Returns the screen.
 */
async function typedAtPrompt(args: string, keys: string, prompt = 'Password for report.zip: '): Promise<string> {
  const vars = `ZIPFS_HOME=${box.home} ZIPFS_THREADS=2 ZIPFS_MAX_RATIO=1000 TERM=xterm`;
  const command = `env ${vars} ${BINARY} ${args}; echo "EXIT=$?"; stty -a`;
  const child = Bun.spawn(['script', '-qec', command, '/dev/null'], { stdin: 'pipe', stdout: 'pipe' });
  const reader = child.stdout.getReader();
  let screen = '';
  let typed = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    screen += new TextDecoder().decode(value);
    if (!typed && screen.includes(prompt)) {
      typed = true;
      child.stdin.write(keys);
      child.stdin.flush();
    }
  }
  await child.exited;
  return screen;
}

describe.skipIf(needs('zip', 'script').skip)('the CLI asks for the password on a terminal', () => {
  it('prompts with echo off, reads the entry, and leaves the terminal as it was', async () => {
    const zip = reportZip();
    box.run(['open', '--lazy', zip]);
    const screen = await typedAtPrompt('read -s report s.txt', `${PASSWORD}\r`);
    expect(screen).toContain('Password for report.zip: ');
    expect(screen).toContain('the secret text');
    expect(screen).not.toContain(PASSWORD);
    expect(screen).toContain('EXIT=0');
    expect(screen).toMatch(/[^-]echo /); // stty -a after: echo is back on
  });

  it('asks once when open extracts (on two threads), and the workspace holds the plaintext', async () => {
    const zip = reportZip(true);
    const screen = await typedAtPrompt(`open ${zip}`, `${PASSWORD}\n`);
    expect(screen.match(/Password for/g)).toHaveLength(1);
    expect(screen).not.toContain(PASSWORD);
    const contents = path.join(box.home, 'workspaces', 'report', 'contents');
    expect(fs.readFileSync(path.join(contents, 's.txt'), 'utf8')).toBe(SECRET_TEXT);
    expect(fs.readFileSync(path.join(contents, 'big2.txt'), 'latin1').startsWith(BIG_LINE)).toBe(true);
    expect(allBytes(box.home)).not.toContain(PASSWORD);
  });

  it('asks again at sync, to write a changed encrypted entry back encrypted', async () => {
    const zip = reportZip();
    await typedAtPrompt(`open ${zip}`, `${PASSWORD}\r`);
    expect(box.run(['write', 's.txt'], { stdin: 'changed\n' }).code).toBe(0);
    const screen = await typedAtPrompt('sync', `${PASSWORD}\r`);
    expect(screen).toContain('EXIT=0');
    expect(screen).not.toContain(PASSWORD);
    if (!needs('7zz').skip)
      expect(execFileSync('7zz', ['x', `-p${PASSWORD}`, '-so', zip, 's.txt']).toString()).toBe('changed\n');
  });

  it('asks at a sync that only adds a file, and writes that file encrypted', async () => {
    const zip = reportZip();
    box.run(['open', '--lazy', zip]);
    expect(box.run(['write', 'added.txt'], { stdin: 'new secret\n' }).code).toBe(0);
    const screen = await typedAtPrompt('sync', `${PASSWORD}\r`);
    expect(screen).toContain('Password for report.zip: ');
    expect(screen).toContain('EXIT=0');
    // The added entry is encrypted: without the password 7-Zip cannot read it, with it, it can.
    const listing = execFileSync('zipinfo', [zip, 'added.txt']).toString();
    expect(listing).toMatch(/^-\S+\s+\S+\s+\S+\s+\d+\s+B/m); // zipinfo's capital B: an encrypted binary entry
    if (!needs('7zz').skip)
      expect(execFileSync('7zz', ['x', `-p${PASSWORD}`, '-so', zip, 'added.txt']).toString()).toBe('new secret\n');
  });

  it('refuses a wrong password before reading anything', async () => {
    const zip = reportZip();
    const screen = await typedAtPrompt(`open ${zip}`, 'not-it\r');
    expect(screen).toContain('password does not fit entry "s.txt"');
    expect(screen).toContain('EXIT=17');
    expect(screen).not.toContain('not-it');
    expect(fs.existsSync(path.join(box.home, 'workspaces', 'report'))).toBe(false);
  });

  it('stops at Ctrl-C with the terminal put back', async () => {
    const zip = reportZip();
    box.run(['open', '--lazy', zip]);
    const screen = await typedAtPrompt('read -s report s.txt', 'abc\u0003');
    expect(screen).toContain('EXIT=130');
    expect(screen).not.toContain('abc');
    expect(screen).toMatch(/[^-]echo /);
    // In a sync, under the session's lock: released on the way out, as any Ctrl-C releases it.
    expect(box.run(['open', '--new', '--name', 'eager', zip], { env: { ZIPFS_PASSWORD: PASSWORD } }).code).toBe(0);
    expect(box.run(['write', '-s', 'eager', 's.txt'], { stdin: 'changed\n' }).code).toBe(0);
    const stopped = await typedAtPrompt('sync -s eager', 'abc\u0003');
    expect(stopped).toContain('EXIT=130');
    expect(stopped).toMatch(/[^-]echo /);
    expect(box.run(['sync', '-s', 'eager'], { env: { ZIPFS_PASSWORD: PASSWORD } }).code).toBe(0);
  });

  it('does not ask off a terminal: the refusal says how to give it', () => {
    const zip = reportZip();
    box.run(['open', '--lazy', zip]);
    const refused = box.run(['read', 's.txt', '--json']).json.error;
    expect(refused.code).toBe('PERMISSION_DENIED');
    expect(refused.message).toContain('--password-file');
  });
});

interface Asked {
  urls: string[];
  statuses: Record<string, number>;
}

/**
 * A client that declares URL elicitation and does what a person with a browser would: opens the page, sends
 * `password` by its form, and accepts (or answers `action` without opening it). The page's other answers (a second
 * use, a wrong token, a foreign Origin) are noted in `statuses`.
 */
function askingClient(password: string, action: 'accept' | 'decline' = 'accept'): { client: Client; asked: Asked } {
  const client = new Client({ name: 'zipfs-elicit', version: '1' }, { capabilities: { elicitation: { url: {} } } });
  const asked: Asked = { urls: [], statuses: {} };
  client.setRequestHandler(ElicitRequestSchema, async (request) => {
    const params = request.params as { mode?: string; url?: string; message: string };
    expect(params.mode).toBe('url');
    const url = params.url!;
    asked.urls.push(url);
    if (action !== 'accept') return { action };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const post = (to: string, headers: Record<string, string> = {}) =>
      fetch(to, { method: 'POST', headers: { ...form, ...headers }, body: new URLSearchParams({ password }) });
    const page = await fetch(url);
    asked.statuses.page = page.status;
    expect(await page.text()).toContain('type="password"');
    asked.statuses.foreignOrigin = (await post(url, { origin: 'http://evil.example' })).status;
    asked.statuses.wrongToken = (await post(url.replace(/[^/]+$/, 'A'.repeat(43)))).status;
    asked.statuses.posted = (await post(url)).status;
    asked.statuses.again = (await post(url)).status;
    return { action: 'accept' };
  });
  return { client, asked };
}

function stdioTransport(): { transport: StdioClientTransport; stderr: () => string } {
  const transport = new StdioClientTransport({
    command: BINARY,
    args: ['mcp', '--root', box.dir],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ZIPFS_HOME: box.home },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return { transport, stderr: () => stderr };
}

describe.skipIf(needs('zip').skip)('the MCP server asks by URL elicitation', () => {
  it('over stdio: the page takes the password once, the read succeeds, later reads do not ask again', async () => {
    const zip = reportZip();
    const { client, asked } = askingClient(PASSWORD);
    const { transport, stderr } = stdioTransport();
    await client.connect(transport);
    const answers: string[] = [];
    try {
      answers.push((await call(client, 'zipfs_open', { path: zip, lazy: true })).text);
      const read = await call(client, 'zipfs_read', { path: 's.txt' });
      answers.push(read.text);
      expect(read.isError).toBe(false);
      expect(read.data.content).toBe(SECRET_TEXT);
      expect(asked.urls).toHaveLength(1);
      expect(asked.urls[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/password\/[A-Za-z0-9_-]{43}$/);
      expect(asked.statuses).toStrictEqual({ page: 200, foreignOrigin: 403, wrongToken: 404, posted: 200, again: 410 });
      answers.push((await call(client, 'zipfs_read', { path: 's.txt' })).text);
      // grep reads the entry on a worker thread, which has the connection's password too.
      const grep = await call(client, 'zipfs_grep', { pattern: 'secret' });
      answers.push(grep.text);
      expect(grep.data.matches.map((m: { file: string }) => m.file)).toContain('s.txt');
      expect(asked.urls).toHaveLength(1); // kept for the connection
      // The page is gone after use.
      expect(
        await fetch(asked.urls[0]!).then(
          (r) => r.status,
          () => 'closed',
        ),
      ).toBe('closed');
    } finally {
      await client.close();
    }
    expect(answers.join('\n')).not.toContain(PASSWORD);
    expect(stderr()).not.toContain(PASSWORD);
    expect(allBytes(box.home)).not.toContain(PASSWORD);
  });

  it('over stdio: an eager open asks, and extracts the encrypted entry', async () => {
    const zip = reportZip();
    const { client, asked } = askingClient(PASSWORD);
    const { transport } = stdioTransport();
    await client.connect(transport);
    try {
      const opened = await call(client, 'zipfs_open', { path: zip });
      expect(opened.isError).toBe(false);
      expect(opened.data.not_extracted).toBeUndefined();
      expect(asked.urls).toHaveLength(1);
      const dir = opened.data.workspace_path as string;
      expect(fs.readFileSync(path.join(dir, 's.txt'), 'utf8')).toBe(SECRET_TEXT);
    } finally {
      await client.close();
    }
    // Another connection, which has no password yet, changes the entry: its sync asks, then writes it encrypted.
    const later = askingClient(PASSWORD);
    await later.client.connect(stdioTransport().transport);
    try {
      expect((await call(later.client, 'zipfs_write', { path: 's.txt', content: 'changed\n' })).isError).toBe(false);
      expect(later.asked.urls).toHaveLength(0);
      const synced = await call(later.client, 'zipfs_sync');
      expect(synced.isError).toBe(false);
      expect(synced.data.files_modified).toBe(1);
      expect(later.asked.urls).toHaveLength(1);
    } finally {
      await later.client.close();
    }
    if (!needs('7zz').skip)
      expect(execFileSync('7zz', ['x', `-p${PASSWORD}`, '-so', zip, 's.txt']).toString()).toBe('changed\n');
  });

  it('keeps a password per archive for the connection', async () => {
    const first = reportZip();
    const second = path.join(box.dir, 'other.zip');
    execFileSync('zip', ['-q', '-P', 'another-pw', second, 's.txt'], { cwd: path.join(box.dir, 'src') });
    const client = new Client({ name: 'zipfs-two', version: '1' }, { capabilities: { elicitation: { url: {} } } });
    const asked: string[] = [];
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      const { url, message } = request.params as { url: string; message: string };
      asked.push(message);
      const password = message.includes('other.zip') ? 'another-pw' : PASSWORD;
      await fetch(url, { method: 'POST', body: new URLSearchParams({ password }) });
      return { action: 'accept' };
    });
    await client.connect(stdioTransport().transport);
    try {
      await call(client, 'zipfs_open', { path: first, lazy: true });
      await call(client, 'zipfs_open', { path: second, lazy: true });
      for (let round = 0; round < 2; round++)
        for (const session of ['report', 'other'])
          expect((await call(client, 'zipfs_read', { path: 's.txt', session })).data.content).toBe(SECRET_TEXT);
      expect(asked).toHaveLength(2);
      expect(asked[0]).toContain('report.zip');
      expect(asked[1]).toContain('other.zip');
    } finally {
      await client.close();
    }
  });

  it('a wrong password is refused, forgotten, and asked again', async () => {
    const zip = reportZip();
    const wrong = askingClient('not-it');
    const { transport, stderr } = stdioTransport();
    await wrong.client.connect(transport);
    try {
      await call(wrong.client, 'zipfs_open', { path: zip, lazy: true });
      const refused = await call(wrong.client, 'zipfs_read', { path: 's.txt' });
      expect(refused.data.error.code).toBe('PERMISSION_DENIED');
      expect(refused.data.error.message).toContain('does not fit entry "s.txt"');
      expect(refused.data.error.message).toContain('asks the user again');
      await call(wrong.client, 'zipfs_read', { path: 's.txt' });
      expect(wrong.asked.urls).toHaveLength(2);
    } finally {
      await wrong.client.close();
    }
    expect(stderr()).not.toContain('not-it');
  });

  it('a declined elicitation, and a client without the capability, get what the user must do', async () => {
    const zip = reportZip();
    const declining = askingClient(PASSWORD, 'decline');
    await declining.client.connect(stdioTransport().transport);
    try {
      await call(declining.client, 'zipfs_open', { path: zip, lazy: true });
      const refused = await call(declining.client, 'zipfs_read', { path: 's.txt' });
      expect(refused.data.error.code).toBe('PERMISSION_DENIED');
      expect(refused.data.error.message).toContain('asked for the password and declined');
      expect(declining.asked.urls).toHaveLength(1);
    } finally {
      await declining.client.close();
    }
    const plain = new Client({ name: 'zipfs-no-elicit', version: '1' });
    await plain.connect(stdioTransport().transport);
    try {
      const refused = await call(plain, 'zipfs_read', { path: 's.txt' });
      expect(refused.data.error.code).toBe('PERMISSION_DENIED');
      expect(refused.data.error.message).toContain('declares no URL elicitation');
      expect(refused.data.error.message).toContain('ZIPFS_PASSWORD_FILE');
    } finally {
      await plain.close();
    }
  });

  it('closes the page when the call is cancelled before the user gives the password', async () => {
    const zip = reportZip();
    const client = new Client({ name: 'zipfs-gives-up', version: '1' }, { capabilities: { elicitation: { url: {} } } });
    const giveUp = new AbortController();
    let url = '';
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      url = (request.params as { url: string }).url;
      expect((await fetch(url)).status).toBe(200);
      queueMicrotask(() => giveUp.abort()); // the user never comes: the agent cancels the call
      return { action: 'accept' };
    });
    await client.connect(stdioTransport().transport);
    try {
      await call(client, 'zipfs_open', { path: zip, lazy: true });
      const read = client.callTool({ name: 'zipfs_read', arguments: { path: 's.txt' } }, undefined, {
        signal: giveUp.signal,
      });
      await expect(read).rejects.toThrow();
      let closed = false;
      for (const deadline = Date.now() + 10_000; !closed && Date.now() < deadline; await Bun.sleep(10))
        closed = await fetch(url).then(
          () => false,
          () => true,
        );
      expect(closed).toBe(true);
    } finally {
      await client.close();
    }
  });

  it('over Streamable HTTP (zipfs mcp --http): the same, the password in no log', async () => {
    const zip = reportZip();
    const server = await httpServer(['0']);
    try {
      const { client, asked } = askingClient(PASSWORD);
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      await call(client, 'zipfs_open', { path: zip, lazy: true });
      const read = await call(client, 'zipfs_read', { path: 's.txt' });
      expect(read.data.content).toBe(SECRET_TEXT);
      expect(read.text).not.toContain(PASSWORD);
      expect(asked.statuses).toStrictEqual({ page: 200, foreignOrigin: 403, wrongToken: 404, posted: 200, again: 410 });
      // Another connection has its own password: it is asked again.
      const other = askingClient(PASSWORD);
      await other.client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      expect((await call(other.client, 'zipfs_read', { path: 's.txt', session: 'report' })).data.content).toBe(
        SECRET_TEXT,
      );
      expect(other.asked.urls).toHaveLength(1);
      await Promise.all([client.close(), other.client.close()]);
    } finally {
      await server.stop();
    }
    expect(server.log()).not.toContain(PASSWORD);
    expect(allBytes(box.home)).not.toContain(PASSWORD);
  });

  it('sends no loopback page when listening for other computers (--allow-remote): configure the server', async () => {
    const zip = reportZip();
    const token = 'a-long-random-secret-for-this-test';
    const server = await httpServer(['0.0.0.0:0', '--allow-remote'], { ZIPFS_MCP_TOKEN: token });
    try {
      const { client, asked } = askingClient(PASSWORD);
      const headers = { authorization: `Bearer ${token}` };
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } }));
      await call(client, 'zipfs_open', { path: zip, lazy: true });
      const refused = await call(client, 'zipfs_read', { path: 's.txt' });
      expect(refused.data.error.code).toBe('PERMISSION_DENIED');
      expect(refused.data.error.message).toContain('cannot reach a password page');
      expect(asked.urls).toHaveLength(0);
      await client.close();
    } finally {
      await server.stop();
    }
  });
});

/** `zipfs mcp --http ARGS`, its URL once it listens, and all it logged (read to the end by stop). */
async function httpServer(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ url: string; log(): string; stop(): Promise<void> }> {
  const server = Bun.spawn([BINARY, 'mcp', '--root', box.dir, '--http', ...args], {
    env: { ...process.env, ZIPFS_HOME: box.home, ...env },
    stdout: 'ignore',
    stderr: 'pipe',
    stdin: 'ignore',
  });
  const reader = server.stderr.getReader();
  let log = '';
  const more = async () => {
    const { value, done } = await reader.read();
    if (!done) log += new TextDecoder().decode(value);
    return !done;
  };
  while (!/http:\/\/\S+\/mcp/.test(log) && (await more()));
  const url = /http:\/\/\S+\/mcp/.exec(log)?.[0];
  if (!url) throw new Error(`zipfs mcp --http did not start: ${log}`);
  return {
    // 0.0.0.0 is where it listens; a client reaches it at 127.0.0.1
    url: url.replace('0.0.0.0', '127.0.0.1'),
    log: () => log,
    stop: async () => {
      server.kill();
      while (await more());
    },
  };
}
