/** `zipfs mcp` on stdio, or `zipfs mcp --http [HOST:]PORT [--allow-remote]` over Streamable HTTP. */
import { ZipfsError, quote } from '../base/errors.ts';

export interface McpModeOptions {
  version: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Serves until the client goes. The words are read here rather than by citty: its parser takes
 * any word silently, and mcp must refuse every word but its two flags and the one address.
 */
export async function serveMcpMode(argv: string[], options: McpModeOptions): Promise<void> {
  const at = argv.indexOf('--http');
  const unknown = argv.find((arg, i) => arg !== '--http' && arg !== '--allow-remote' && i !== at + 1);
  if (unknown !== undefined || (at >= 0 && argv[at + 1] === undefined)) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `zipfs mcp takes no arguments (stdio), or --http [HOST:]PORT with --allow-remote for an address other than 127.0.0.1${unknown !== undefined ? `; got ${quote(unknown)}` : ''}.`,
    );
  }
  if (at < 0) {
    const { serveMcp } = await import('../mcp/server.ts');
    return serveMcp(options);
  }
  const { parseListen, serveHttp } = await import('../mcp/http-server.ts');
  await serveHttp(options, {
    ...parseListen(argv[at + 1]!),
    allowRemote: argv.includes('--allow-remote'),
    token: options.env.ZIPFS_MCP_TOKEN || undefined,
  });
}
