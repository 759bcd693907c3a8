/**
 * `zipfs mcp --http [HOST:]PORT`: the same tools over Streamable HTTP, for
 * several agents sharing one zipfs. Each MCP session (Mcp-Session-Id) gets a
 * server of its own over the SDK's web-standard transport (SSE for progress,
 * DELETE to end it); all sessions share the process's per-session queues.
 * Safe by default: it listens on 127.0.0.1; any other address needs
 * --allow-remote and a bearer token (ZIPFS_MCP_TOKEN), and Host and Origin
 * are checked so a web page cannot reach it through DNS rebinding.
 */
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
// A namespace import: the class's name and its module's path do not fit on one line together.
import * as webStandardHttp from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { ZipfsError } from '../base/errors.ts';
import { logger } from '../base/log.ts';
import { isLoopbackHost, refusalOf } from './request-guard.ts';
import { MAX_MESSAGE_BYTES, createMcpServer, quietConsole, type ServerOptions } from './server.ts';

type Transport = webStandardHttp.WebStandardStreamableHTTPServerTransport;

export interface HttpListen {
  host: string;
  port: number;
  /** Given --allow-remote: listening on an address other computers reach. */
  allowRemote: boolean;
  /** ZIPFS_MCP_TOKEN: every request must carry it as `Authorization: Bearer <token>`. */
  token?: string;
}

/** "8080", "127.0.0.1:8080", "[::1]:8080", "0.0.0.0:8080" -> host and port; 127.0.0.1 when no host is given. */
export function parseListen(text: string): { host: string; port: number } {
  const match = /^(?:(\[[0-9a-fA-F:]+\]|[^:\[\]]+):)?(\d{1,5})$/.exec(text.trim());
  const port = match ? Number(match[2]) : NaN;
  if (!match || port > 65535)
    throw new ZipfsError(
      'INVALID_INPUT',
      `Invalid --http ${JSON.stringify(text)}: give a port (8080) or host:port (127.0.0.1:8080).`,
    );
  return { host: match[1]?.replace(/^\[|\]$/g, '') ?? '127.0.0.1', port };
}

const jsonError = (status: number, message: string, headers: Record<string, string> = {}) =>
  Response.json({ jsonrpc: '2.0', id: null, error: { code: -32000, message } }, { status, headers });

export async function serveHttp(options: ServerOptions, listen: HttpListen): Promise<void> {
  const local = isLoopbackHost(listen.host);
  if (!local && !listen.allowRemote) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Listening on ${listen.host} lets other computers reach zipfs; add --allow-remote to mean it, and set ` +
        `ZIPFS_MCP_TOKEN, or listen on 127.0.0.1.`,
    );
  }
  if (!local && !listen.token)
    throw new ZipfsError(
      'INVALID_INPUT',
      `Listening on ${listen.host} needs a bearer token: set ZIPFS_MCP_TOKEN (a long random string) and give it to ` +
        `the clients.`,
    );
  await quietConsole();
  const log = await logger();
  const sessions = new Map<string, { transport: Transport; server: Server }>();

  /** DNS rebinding and the token: request-guard.ts. */
  const refusal = (request: Request): Response | undefined => {
    const refused = refusalOf(request.headers, { local, port: () => http.port ?? listen.port, token: listen.token });
    return (
      refused &&
      jsonError(refused.status, refused.message, refused.status === 401 ? { 'WWW-Authenticate': 'Bearer' } : {})
    );
  };

  const newSession = async (request: Request): Promise<Response> => {
    const server = await createMcpServer({ ...options, remote: !local });
    const transport: Transport = new webStandardHttp.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => globalThis.crypto.randomUUID(),
      onsessioninitialized: (id) => void sessions.set(id, { transport, server }),
      onsessionclosed: (id) => {
        sessions.delete(id);
        void server.close();
      },
      maxRequestBodySize: MAX_MESSAGE_BYTES,
    });
    await server.connect(transport);
    return transport.handleRequest(request);
  };

  const http = Bun.serve({
    hostname: listen.host,
    port: listen.port,
    idleTimeout: 0, // an SSE stream may stay open while a long sync runs
    async fetch(request) {
      // Before anything reads request.url: Bun builds it from the Host header, which may not parse.
      const refused = refusal(request);
      if (refused) return refused;
      const url = new URL(request.url);
      if (url.pathname === '/health' && request.method === 'GET')
        return Response.json({ status: 'ok', version: options.version, sessions: sessions.size });
      if (url.pathname !== '/mcp')
        return jsonError(404, `No such endpoint ${url.pathname}: MCP is served at /mcp, a health check at /health.`);
      const id = request.headers.get('mcp-session-id');
      if (id !== null) {
        const session = sessions.get(id);
        if (!session)
          return jsonError(404, 'Session not found (it ended, or the server restarted): initialize a new one.');
        return session.transport.handleRequest(request);
      }
      if (request.method === 'POST') return newSession(request);
      return jsonError(400, 'No Mcp-Session-Id: initialize a session with a POST first.');
    },
  });
  const shown = http.hostname?.includes(':') ? `[${http.hostname}]` : http.hostname;
  log.info(`zipfs ${options.version} MCP server on http://${shown}:${http.port}/mcp`);
  // Until a signal ends the process (exit-cleanup.ts removes what work in flight leaves, and releases locks).
  await new Promise<never>(() => {});
}
