/**
 * Which commands of the dispatch table an end-to-end test really invokes, read
 * from the tests' source. A name that merely appears (a comment, a tools/list
 * expectation, an error message) does not count: only a call through the
 * compiled binary does, on each surface:
 * - CLI: the command as the first argument of `box.run([...])`, `runZipfs([...])`
 *   or `Bun.spawn([BINARY, ...])` (cli.ts runs dist/zipfs);
 * - MCP: `zipfs_NAME` as the tool of `call(client, ...)` (mcp-client.ts, over
 *   `zipfs mcp`), `structured(client, ...)`, `callTool({ name })`, a raw
 *   JSON-RPC `tools/call` (raw-mcp.ts `tool(id, ...)`, `params: { name }`), or
 *   the Python SDK's `call_tool(...)`.
 */
import fs from 'node:fs';
import path from 'node:path';

/** Comments out: a name in one proves nothing. (A `//` after a colon, as in a URL, stays.) */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/[^\n]*/g, '$1');
}

const CLI_CALL = /(?:\b(?:run|runZipfs)\(\s*\[\s*|\bspawn(?:Sync)?\(\s*\[\s*BINARY\s*,\s*)'([a-z][a-z-]*)'/g;
const MCP_CALL =
  /(?:\b(?:call|structured)\(\s*[\w.]+\s*,\s*|\bcallTool\(\s*\{\s*name:\s*|\bcall_tool\(\s*|\btool\(\s*[^,()]+,\s*|'tools\/call',\s*params:\s*\{\s*name:\s*)['"]([a-z][a-z_-]*)['"]/g;

/** The command names a set of test sources invokes on each surface (MCP names with their prefix). */
export function invoked(sources: string[]): { cli: Set<string>; mcp: Set<string> } {
  const cli = new Set<string>();
  const mcp = new Set<string>();
  for (const source of sources.map(withoutComments)) {
    for (const match of source.matchAll(CLI_CALL)) cli.add(match[1]!);
    for (const match of source.matchAll(MCP_CALL)) mcp.add(match[1]!);
  }
  return { cli, mcp };
}

/** The commands of `names` that no source invokes through the binary, per surface (empty lists when all are). */
export function uncovered(
  names: readonly string[],
  sources: string[],
  mcpPrefix: string,
): { cli: string[]; mcp: string[] } {
  const found = invoked(sources);
  return {
    cli: names.filter((name) => !found.cli.has(name)),
    mcp: names.filter((name) => !found.mcp.has(`${mcpPrefix}${name}`)),
  };
}

/** The source of every end-to-end test file (tests/e2e/*.test.ts). */
export function e2eSources(): string[] {
  const dir = path.resolve(import.meta.dir, '../e2e');
  return fs
    .readdirSync(dir)
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => fs.readFileSync(path.join(dir, file), 'utf8'));
}
