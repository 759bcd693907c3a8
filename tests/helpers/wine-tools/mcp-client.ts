/**
 * Test-only (the Wine tests): an MCP client on the Windows side, compiled to mcp-client.exe.
 * Wine 8.0 cannot read a Linux pipe as a Windows program's stdin, but pipes between two
 * Windows programs work: this one spawns `zipfs.exe mcp` with the SDK's own stdio transport
 * (as Claude Desktop or Cursor would on Windows), makes the tool calls listed in a JSON file
 * one after another, each waiting for its answer, and prints one JSON line:
 * { server, tools, results } (results: the SDK's callTool answers, in order).
 *   mcp-client.exe ZIPFS_EXE CALLS_JSON
 */
import fs from 'node:fs';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const [server, callsFile] = process.argv.slice(2);
if (!server || !callsFile) {
  process.stderr.write('usage: mcp-client.exe ZIPFS_EXE CALLS_JSON\n');
  process.exit(2);
}
const calls = JSON.parse(fs.readFileSync(callsFile, 'utf8')) as { name: string; arguments?: Record<string, unknown> }[];
const transport = new StdioClientTransport({
  command: server,
  args: ['mcp'],
  env: process.env as Record<string, string>,
  stderr: 'inherit',
});
const client = new Client({ name: 'zipfs-wine-tests', version: '1.0.0' });
await client.connect(transport);
const tools = (await client.listTools()).tools.map((tool) => tool.name);
const results = [];
for (const call of calls) results.push(await client.callTool(call));
await client.close();
process.stdout.write(`${JSON.stringify({ server: client.getServerVersion(), tools, results })}\n`);
