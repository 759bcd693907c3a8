/** `zipfs mcp --http 0` for a test, and SDK clients connected to it over Streamable HTTP. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BINARY } from './ensure-binary.ts';
import { TEST_ROOTS } from './mcp-client.ts';

/**
 * Starts `zipfs mcp --http ARGS` with this data folder; returns its URL once it listens, its process, and a way to
 * stop it.
 */
export async function startHttpServer(
  home: string,
  args: string[] = ['0'],
  env: Record<string, string> = {},
): Promise<{ url: string; process: Bun.Subprocess<'ignore', 'ignore', 'pipe'>; stop(): void }> {
  const server = Bun.spawn([BINARY, 'mcp', '--http', ...args], {
    env: { ...process.env, ZIPFS_HOME: home, ...TEST_ROOTS, ...env },
    stdout: 'ignore',
    stderr: 'pipe',
    stdin: 'ignore',
  });
  const reader = server.stderr.getReader();
  let text = '';
  for (const deadline = Date.now() + 10_000; Date.now() < deadline; ) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
    const url = /http:\/\/\S+\/mcp/.exec(text)?.[0];
    if (url) return { url, process: server, stop: () => server.kill() };
  }
  server.kill();
  throw new Error(`zipfs mcp --http did not start: ${text}`);
}

/** An agent: an SDK Client named `name`, connected to the server at `url`. */
export async function httpAgent(url: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}
