/**
 * `zipfs mcp`: the dispatch table served over stdio with the SDK's low-level
 * Server. Only files in src/mcp/ import the SDK.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import type { CommandContext } from '../table/command.ts';
import { quote, toZipfsError } from '../base/errors.ts';
import { logger } from '../base/log.ts';
import { throttleProgress } from '../table/progress.ts';
import { COMMANDS, MCP_TOOL_PREFIX } from '../table/registry.ts';
import { validateInput } from '../table/validate.ts';
import { runCommand } from '../table/run-command.ts';
import { mcpMessage, mcpResult } from './render-message.ts';
import { LineTransport } from './stdio-transport.ts';
import { toolDefinition } from './tools.ts';
import { connectionPasswords } from './password-elicitation.ts';
import { ownerOf } from '../session/owner.ts';
import { beginConnection, endConnection } from '../session/connections.ts';
import { ClientRoots, type RootsConfig } from './roots.ts';
import { READ_ONLY_NOTE, refuseIfChanging, servedReadOnly } from './read-only.ts';

const INSTRUCTIONS =
  'zipfs opens a zip archive as a folder: zipfs_open extracts it into a workspace session whose files you read and ' +
  'change with these tools, or with any tool in the folder zipfs_path returns. ' +
  'zipfs_status shows what changed and zipfs_sync writes it back into the original zip atomically with a backup. ' +
  'The session argument may be left out: calls then go to the session this connection opened or named last (or ' +
  'the only one open). Big archives: open with lazy, and read, grep, ls, diff work on entries not extracted.';

/**
 * What one answer may take: an agent pays for every answer in context, so none is over about
 * 25,000 tokens, taken as 100,000 characters of the MCP result (structuredContent plus the text
 * block that repeats it as escaped JSON). Long answers come in pages that fit (src/paging.ts).
 */
export const MAX_ANSWER_CHARS = 100_000;
/** Left free when a page is measured, for what is added after: message marks in MCP's words, a note. */
const MARGIN_CHARS = 1_000;
/** The largest message zipfs takes in; a larger one is answered with an error saying to write in pieces. */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

export interface ServerOptions {
  version: string;
  home: string;
  env: NodeJS.ProcessEnv;
  /** Listening for other computers (--http with --allow-remote): a password page on loopback is out of their reach. */
  remote?: boolean;
  /** Where zips may be reached (roots.ts): --root, ZIPFS_ROOTS, the working folder. */
  roots: RootsConfig;
  /** --read-only: only the tools that change nothing (read-only.ts). */
  readOnly?: boolean;
}

/** The tool list, made once per process: every session serves the same table. */
let toolList: { command: (typeof COMMANDS)[number]; definition: ReturnType<typeof toolDefinition> }[] | undefined;

/**
 * An MCP server with every tool of the table, not yet connected: stdio serves
 * one, Streamable HTTP one per session (http-server.ts). Sessions of one
 * process share the per-session-lock queues (session/lock.ts).
 */
export async function createMcpServer(options: ServerOptions): Promise<Server> {
  const log = await logger();
  const server = new Server(
    { name: 'zipfs', title: 'zipfs', version: options.version },
    {
      capabilities: { tools: {} },
      instructions: options.readOnly ? `${INSTRUCTIONS} ${READ_ONLY_NOTE}` : INSTRUCTIONS,
    },
  );
  const roots = new ClientRoots(server, options.roots);
  // The server lives as long as its client's job: what it opens is its own.
  const serverOwner = ownerOf(process.pid);
  const tools = (toolList ??= COMMANDS.map((command) => ({ command, definition: toolDefinition(command) })));
  const served = options.readOnly ? tools.filter((t) => servedReadOnly(t.command)) : tools;
  const servedNames = served.map((t) => t.definition.name).join(', ');
  // This client's memory of its sessions (session/connections.ts), for as long as it is connected.
  const connection = beginConnection('an MCP client');
  server.oninitialized = () => {
    const info = server.getClientVersion();
    if (info) connection.client = `MCP client ${info.name}${info.version ? ` ${info.version}` : ''}`;
  };
  server.onclose = () => endConnection(connection);
  // The archive password this connection was given, asked of the user by URL elicitation when a call needs it.
  const withPassword = connectionPasswords(server, { pageReachable: !options.remote });

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: served.map((t) => t.definition) }));

  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const tool = tools.find((t) => t.definition.name === request.params.name);
    if (!tool) {
      // A plain error with a JSON-RPC code: McpError would put "MCP error -32602:" in the text, which clients add
      // again.
      throw Object.assign(new Error(`Unknown tool ${quote(request.params.name)}; zipfs tools are ${servedNames}.`), {
        code: ErrorCode.InvalidParams,
      });
    }
    const progressToken = request.params._meta?.progressToken;
    const context: CommandContext = {
      home: options.home,
      env: options.env,
      hints: {},
      owner: serverOwner,
      connection,
      signal: extra.signal,
      maxAnswerBytes: MAX_ANSWER_CHARS - MARGIN_CHARS,
    };
    if (progressToken !== undefined) {
      context.progress = throttleProgress((progress, total, message) => {
        void extra.sendNotification({
          method: 'notifications/progress',
          params: { progressToken, progress, total, message },
        });
      });
    }
    try {
      if (options.readOnly) refuseIfChanging(tool.command, request.params.arguments, servedNames);
      context.zips = await roots.current(extra.sendRequest);
      const input = validateInput(tool.command, request.params.arguments);
      const output = mcpResult(await withPassword(extra, () => runCommand(tool.command, input, context)));
      return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
    } catch (error) {
      const failure = toZipfsError(error);
      if (failure.code === 'INTERNAL_ERROR') log.error(error);
      failure.message = mcpMessage(failure.message);
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(failure.toJSON()) }] };
    }
  });

  return server;
}

/** Anything printed by accident must not corrupt the protocol stream (stdout on stdio): logs go to stderr. */
export async function quietConsole(): Promise<void> {
  const log = await logger();
  console.log = console.info = console.debug = (...args: unknown[]) => log.info(...(args as [string]));
}

export async function serveMcp(options: ServerOptions): Promise<void> {
  await quietConsole();
  const log = await logger();
  const server = await createMcpServer(options);
  const transport = new LineTransport(MAX_MESSAGE_BYTES);
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
  });
  await server.connect(transport);
  log.info(`zipfs ${options.version} MCP server on stdio (${MCP_TOOL_PREFIX}* tools: ${COMMANDS.length})`);
  await closed;
  await server.close();
}
