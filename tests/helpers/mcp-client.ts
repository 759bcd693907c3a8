/** Connects the MCP SDK's own Client to `zipfs mcp` over stdio. */
import { expect } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BINARY } from './ensure-binary.ts';
import { CORPUS_DIR } from './corpus.ts';

/**
 * The MCP server reaches zips only in its roots (issue 33); the tests' zips are in the system's temporary folder and
 * the shared corpus, so those are the roots of a test's server unless the test gives its own
 * (tests/e2e/mcp-roots.test.ts).
 */
export const TEST_ROOTS = {
  ZIPFS_ROOTS: [os.tmpdir(), ...(fs.existsSync(CORPUS_DIR) ? [CORPUS_DIR] : [])].join(path.delimiter),
};

export async function connect(
  home: string,
  env: Record<string, string> = {},
): Promise<{ client: Client; close(): Promise<void>; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: BINARY,
    args: ['mcp'],
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ZIPFS_HOME: home, ...TEST_ROOTS, ...env },
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'zipfs-tests', version: '1.0.0' });
  await client.connect(transport);
  return { client, close: () => client.close(), stderr: () => stderr };
}

/**
 * Calls a tool and returns its result: structuredContent on success, the `{ error }` object of the text block on
 * failure.
 */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ isError: boolean; data: any; text: string }> {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as { type: string; text: string }[])[0]?.text ?? '';
  if (result.isError) {
    // errors are not results: the output schema describes results only
    expect(result.structuredContent).toBeUndefined();
    return { isError: true, data: JSON.parse(text), text };
  }
  return { isError: false, data: result.structuredContent, text };
}
