/** A warm `zipfs mcp` answering many small reads in a row, through the SDK's own client; and what its tool list costs a client's context. */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { percentile } from './report.ts';

export async function mcpReadLatency(binary: string, home: string, file: string, calls: number): Promise<{ p50: number; p99: number; mean: number; tools: number; toolsListBytes: number }> {
  const transport = new StdioClientTransport({ command: binary, args: ['mcp'], env: { ...process.env, ZIPFS_HOME: home } as Record<string, string>, stderr: 'ignore' });
  const client = new Client({ name: 'zipfs-bench', version: '1' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const toolsListBytes = JSON.stringify({ tools }).length;
    for (let i = 0; i < 50; i++) await client.callTool({ name: 'zipfs_read', arguments: { path: file } }); // warm-up
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      const result = await client.callTool({ name: 'zipfs_read', arguments: { path: file } });
      times.push(performance.now() - started);
      if (result.isError) throw new Error(JSON.stringify(result.content));
    }
    return { p50: percentile(times, 50), p99: percentile(times, 99), mean: times.reduce((a, b) => a + b, 0) / times.length, tools: tools.length, toolsListBytes };
  } finally {
    await client.close();
  }
}
