/**
 * A warm `zipfs mcp` answering many small reads in a row, through the SDK's own
 * client, over stdio and over Streamable HTTP; and what its tool list costs a
 * client's context.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { percentile } from './report.ts';

export interface Latency {
  p50: number;
  p99: number;
  mean: number;
}

/** What one zipfs_read asks: a path, and optionally a page (`limit: 4096`). */
export interface ReadCall {
  path: string;
  limit?: number;
}

function latency(times: number[]): Latency {
  return {
    p50: percentile(times, 50),
    p99: percentile(times, 99),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
  };
}

async function timedRead(client: Client, read: ReadCall): Promise<number> {
  const started = performance.now();
  const result = await client.callTool({ name: 'zipfs_read', arguments: { ...read } });
  const ms = performance.now() - started;
  if (result.isError) throw new Error(JSON.stringify(result.content));
  return ms;
}

async function readLatency(client: Client, file: string, calls: number): Promise<Latency> {
  for (let i = 0; i < 50; i++) await timedRead(client, { path: file }); // warm-up
  const times: number[] = [];
  for (let i = 0; i < calls; i++) times.push(await timedRead(client, { path: file }));
  return latency(times);
}

function stdioClient(binary: string, home: string): { client: Client; transport: StdioClientTransport } {
  const transport = new StdioClientTransport({
    command: binary,
    args: ['mcp'],
    env: { ...process.env, ZIPFS_HOME: home } as Record<string, string>,
    stderr: 'ignore',
  });
  return { client: new Client({ name: 'zipfs-bench', version: '1' }), transport };
}

/**
 * Several warm servers over stdio (one per ZIPFS_HOME), each answering the same kind of read,
 * called in turn (A B, B A, ...) so drift in the machine hits them alike: their p50s compare.
 */
export async function mcpReadLatencies(
  binary: string,
  targets: { home: string; read: ReadCall }[],
  calls: number,
): Promise<Latency[]> {
  const clients: Client[] = [];
  try {
    for (const target of targets) {
      const { client, transport } = stdioClient(binary, target.home);
      await client.connect(transport);
      clients.push(client);
    }
    // warm-up
    for (let i = 0; i < 50; i++) for (const [n, client] of clients.entries()) await timedRead(client, targets[n]!.read);
    const times = targets.map(() => [] as number[]);
    for (let i = 0; i < calls; i++) {
      for (let k = 0; k < clients.length; k++) {
        const n = (i + k) % clients.length;
        times[n]!.push(await timedRead(clients[n]!, targets[n]!.read));
      }
    }
    return times.map(latency);
  } finally {
    for (const client of clients) await client.close();
  }
}

export async function mcpReadLatency(
  binary: string,
  home: string,
  file: string,
  calls: number,
): Promise<Latency & { tools: number; toolsListBytes: number }> {
  const { client, transport } = stdioClient(binary, home);
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    return {
      ...(await readLatency(client, file, calls)),
      tools: tools.length,
      toolsListBytes: Buffer.byteLength(JSON.stringify({ tools })),
    };
  } finally {
    await client.close();
  }
}

export async function mcpHttpReadLatency(binary: string, home: string, file: string, calls: number): Promise<Latency> {
  const server = Bun.spawn([binary, 'mcp', '--http', '0'], {
    env: { ...process.env, ZIPFS_HOME: home },
    stdout: 'ignore',
    stderr: 'pipe',
  });
  try {
    const reader = server.stderr.getReader();
    let text = '';
    let url: string | undefined;
    while (!url) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`zipfs mcp --http did not start: ${text}`);
      text += new TextDecoder().decode(value);
      url = /http:\/\/\S+\/mcp/.exec(text)?.[0];
    }
    const client = new Client({ name: 'zipfs-bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(url)));
    try {
      return await readLatency(client, file, calls);
    } finally {
      await client.close();
    }
  } finally {
    server.kill();
  }
}
