/**
 * `zipfs mcp` on stdio, or `zipfs mcp --http [HOST:]PORT [--allow-remote]` over Streamable HTTP; either with
 * `--root DIR...` (repeatable) and `--read-only`.
 */
import { ZipfsError, quote } from '../base/errors.ts';
import { fullJit } from '../base/jit-policy.ts';

export interface McpModeOptions {
  version: string;
  home: string;
  env: NodeJS.ProcessEnv;
}

interface McpWords {
  http?: string;
  allowRemote: boolean;
  roots: string[];
  readOnly: boolean;
}

const USAGE =
  'zipfs mcp takes --root DIR... (repeatable) and --read-only, and serves stdio, or with --http [HOST:]PORT ' +
  'Streamable HTTP (with --allow-remote for an address other than 127.0.0.1)';

/** A flag that takes a value: `--root DIR` or `--root=DIR`; undefined when `arg` is not that flag. */
function valueOf(argv: string[], i: number, flag: string): { value: string; words: number } | undefined {
  const arg = argv[i]!;
  const joined = arg.startsWith(`${flag}=`);
  if (!joined && arg !== flag) return undefined;
  const value = joined ? arg.slice(flag.length + 1) : argv[i + 1];
  // An empty one would be the working folder, or no address, without saying so.
  if (value === undefined || value === '') throw new ZipfsError('INVALID_INPUT', `${flag} needs a value; ${USAGE}.`);
  return { value, words: joined ? 1 : 2 };
}

/**
 * The words are read here rather than by citty: its parser takes any word silently, and mcp must
 * refuse every word but its flags and their values.
 */
export function parseMcpWords(argv: string[]): McpWords {
  const words: McpWords = { allowRemote: false, roots: [], readOnly: false };
  for (let i = 0; i < argv.length; ) {
    const arg = argv[i]!;
    const http = valueOf(argv, i, '--http');
    const root = valueOf(argv, i, '--root');
    if (http) words.http = http.value;
    else if (root) words.roots.push(root.value);
    else if (arg === '--allow-remote') words.allowRemote = true;
    else if (arg === '--read-only') words.readOnly = true;
    else throw new ZipfsError('INVALID_INPUT', `${USAGE}; got ${quote(arg)}.`);
    i += http?.words ?? root?.words ?? 1;
    // `--root A B`: more folders after one --root, as an MCP Bundle's folder list arrives (scripts/release/mcpb.ts:
    // Claude Desktop turns `${user_config.allowed_directories}` into one argument per folder).
    if (root?.words === 2) for (; i < argv.length && !argv[i]!.startsWith('--'); i++) words.roots.push(argv[i]!);
  }
  return words;
}

/** Serves until the client goes. */
export async function serveMcpMode(argv: string[], options: McpModeOptions): Promise<void> {
  const words = parseMcpWords(argv);
  fullJit(); // a server lives long: its hot paths are worth compiling
  const { rootsConfig } = await import('../mcp/roots.ts');
  const server = { ...options, roots: rootsConfig(words.roots, options.env), readOnly: words.readOnly };
  if (words.http === undefined) {
    const { serveMcp } = await import('../mcp/server.ts');
    return serveMcp(server);
  }
  const { parseListen, serveHttp } = await import('../mcp/http-server.ts');
  await serveHttp(server, {
    ...parseListen(words.http),
    allowRemote: words.allowRemote,
    token: options.env.ZIPFS_MCP_TOKEN || undefined,
  });
}
