/**
 * The table's runner: how every surface (the CLI, the MCP server, exec) runs one command of the
 * table on validated input. The session plumbing happens here, once: a command that declared
 * `session: 'read'` gets its session resolved, one that declared 'write' gets it resolved and
 * locked for its whole run, and either finds it in `context.session`. Commands that declared
 * none (open, inspect, sessions, prune, close) resolve nothing here.
 */
import type { Command, CommandContext, SessionContext } from './command.ts';
import { lockWait } from './command.ts';
import { withSessionLock } from '../session/lock.ts';
import { resolveSession } from '../session/resolve-session.ts';

/** Runs `command` on `input` (validated: validate.ts) and returns its output. */
export async function runCommand(
  command: Command,
  input: Record<string, unknown>,
  context: CommandContext,
): Promise<Record<string, unknown>> {
  command.check?.(input as never);
  const run = (given: CommandContext) =>
    command.run(input as never, given as SessionContext) as Record<string, unknown> | Promise<Record<string, unknown>>;
  if (command.session === undefined) return run(context);
  // The hints are the CLI's ($ZIPFS_SESSION, the working folder inside a workspace); MCP gives none.
  const selector = typeof input.session === 'string' ? input.session : undefined;
  const session = resolveSession(context.home, selector, context.hints);
  const withSession: SessionContext = { ...context, session };
  if (command.session === 'read') return run(withSession); // reads never take the lock (lock.ts)
  return withSessionLock(session, command.name, () => run(withSession), lockWait(context));
}
