/** Talks JSON-RPC to `zipfs mcp` by hand, to see every byte it writes to stdout. */
import { BINARY } from './ensure-binary.ts';
import { TEST_ROOTS } from './mcp-client.ts';

/**
 * Sends each message as one line (a string is sent as it is: malformed input), then reads until the ids are answered.
 */
export async function rawSession(
  home: string,
  messages: (object | string)[],
  waitForIds: (number | null)[],
): Promise<{ lines: string[]; byId: Map<number | null, any>; stderr: string; exitCode: number }> {
  const child = Bun.spawn([BINARY, 'mcp'], {
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: 'pipe',
    env: { ...process.env, ZIPFS_HOME: home, ...TEST_ROOTS },
  });
  for (const message of messages)
    child.stdin.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  await child.stdin.flush();
  const lines: string[] = [];
  const byId = new Map<number | null, any>();
  const decoder = new TextDecoder();
  let buffered = '';
  const reader = child.stdout.getReader();
  const deadline = Date.now() + 15_000;
  while (waitForIds.some((id) => !byId.has(id)) && Date.now() < deadline) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      lines.push(line);
      const parsed = JSON.parse(line);
      if (parsed.id !== undefined) byId.set(parsed.id, parsed);
    }
  }
  child.stdin.end();
  const exitCode = await child.exited;
  const stderr = await new Response(child.stderr).text();
  if (buffered.trim() !== '') lines.push(buffered);
  return { lines, byId, stderr, exitCode };
}

export function initialize(id: number, protocolVersion: string): object {
  return {
    jsonrpc: '2.0',
    id,
    method: 'initialize',
    params: { protocolVersion, capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
  };
}

export const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
