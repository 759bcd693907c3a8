/**
 * MCP over stdio, one JSON-RPC message per line, for the SDK's Server. The
 * SDK's own transport closes itself when a line passes 10 MiB (the server then
 * exits without a word) and drops lines it cannot parse in silence; an agent
 * sees neither. Here every line gets an answer or is handled:
 * - a line over the size limit is skipped in bounded memory and answered with
 *   an error to its request id, saying how to send less (write in pieces);
 * - a line that is not JSON: -32700; a batch (MCP 2025-06-18 removed them) or
 *   a non-message: -32600; the server keeps serving.
 */
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { JSONRPCMessageSchema, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;
/** How much of an oversized line is kept to find its request id: its start and its end. */
const EDGE_BYTES = 512;

type Id = string | number | null;

export class LineTransport implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;

  private pending: Buffer[] = [];
  private pendingBytes = 0;
  /** Set while skipping a line past the limit: its first bytes, and the last ones seen. */
  private oversized: { head: Buffer; tail: Buffer; bytes: number } | undefined;

  constructor(
    private readonly maxLineBytes: number,
    private readonly input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {}

  async start(): Promise<void> {
    this.input.on('data', this.onData);
    this.input.on('end', this.onEnd);
    this.input.on('error', (error: Error) => this.onerror?.(error));
  }

  async send(message: JSONRPCMessage): Promise<void> {
    const line = `${JSON.stringify(message)}\n`;
    if (!this.output.write(line)) await new Promise<void>((resolve) => this.output.once('drain', () => resolve()));
  }

  async close(): Promise<void> {
    this.input.off('data', this.onData);
    this.input.off('end', this.onEnd);
    this.onclose?.();
  }

  private readonly onEnd = () => {
    void this.close();
  };

  private readonly onData = (chunk: Buffer) => {
    let at = 0;
    for (let newline = chunk.indexOf(0x0a, at); newline >= 0; newline = chunk.indexOf(0x0a, at)) {
      this.take(chunk.subarray(at, newline));
      this.endLine();
      at = newline + 1;
    }
    if (at < chunk.length) this.take(chunk.subarray(at));
  };

  /** Adds part of the current line, switching to skipping once it passes the limit. */
  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.oversized) {
      this.oversized.bytes += part.length;
      this.oversized.tail = Buffer.concat([this.oversized.tail, part]).subarray(-EDGE_BYTES);
      return;
    }
    this.pending.push(Buffer.from(part));
    this.pendingBytes += part.length;
    if (this.pendingBytes > this.maxLineBytes) {
      const whole = Buffer.concat(this.pending);
      this.oversized = { head: whole.subarray(0, EDGE_BYTES), tail: whole.subarray(-EDGE_BYTES), bytes: whole.length };
      this.pending = [];
      this.pendingBytes = 0;
    }
  }

  private endLine(): void {
    if (this.oversized) {
      const { head, tail, bytes } = this.oversized;
      this.oversized = undefined;
      const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;
      this.reject(
        findId(head.toString('utf8'), tail.toString('utf8')),
        INVALID_REQUEST,
        `The message is ${mib(bytes)}, over the ${mib(this.maxLineBytes)} zipfs accepts in one message. Send large ` +
          `content in pieces: zipfs_write with append: true for each piece after the first.`,
      );
      return;
    }
    const line = Buffer.concat(this.pending, this.pendingBytes).toString('utf8').replace(/\r$/, '');
    this.pending = [];
    this.pendingBytes = 0;
    if (line.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      this.reject(
        null,
        PARSE_ERROR,
        `Parse error: the line is not JSON (${(error as Error).message.slice(0, 120)}). Send one JSON-RPC message ` +
          `per line.`,
      );
      return;
    }
    if (Array.isArray(value)) {
      this.reject(
        null,
        INVALID_REQUEST,
        'Batches are not supported (MCP 2025-06-18 removed JSON-RPC batching); send one message per line.',
      );
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (!parsed.success) {
      const id =
        typeof value === 'object' && value !== null && 'id' in value ? ((value as { id: Id }).id ?? null) : null;
      this.reject(
        id,
        INVALID_REQUEST,
        'Invalid request: not a JSON-RPC 2.0 message (it needs "jsonrpc": "2.0" and a method, or a result or error ' +
          'with an id).',
      );
      return;
    }
    this.onmessage?.(parsed.data);
  }

  private reject(id: Id, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', id, error: { code, message } } as unknown as JSONRPCMessage);
  }
}

/** The request id of a line too large to parse, from its first or last bytes (writers put it at one end). */
function findId(head: string, tail: string): Id {
  const value = String.raw`("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})`;
  const atEnd = new RegExp(String.raw`"id"\s*:\s*${value}\s*\}\s*$`).exec(tail);
  const atStart = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${value}`).exec(head);
  const found = atEnd?.[1] ?? atStart?.[1];
  return found === undefined ? null : (JSON.parse(found) as string | number);
}
