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
import { rememberSession } from '../session/connections.ts';
import { withArchive } from '../zip/index.ts';
import { quote } from '../base/errors.ts';
import { zipPlace } from '../session/manifest.ts';
import { jitFor } from '../base/jit-policy.ts';

/** Runs `command` on `input` (validated: validate.ts) and returns its output. */
export async function runCommand(
  command: Command,
  input: Record<string, unknown>,
  context: CommandContext,
): Promise<Record<string, unknown>> {
  command.check?.(input as never);
  const run = (given: CommandContext) =>
    command.run(input as never, given as SessionContext) as Record<string, unknown> | Promise<Record<string, unknown>>;
  // The CLI's hints are $ZIPFS_SESSION and the working folder; an MCP connection's, the session it used last.
  const { connection } = context;
  if (connection?.remembered) context = { ...context, hints: { ...context.hints, remembered: connection.remembered } };
  if (command.session === undefined) {
    // The archive a password prompt names: open's (zip/ciphers/password.ts).
    const output = await withArchive(typeof input.path === 'string' ? input.path : undefined, () => run(context));
    // open's session is the connection's from now on
    if (typeof output.session_id === 'string') rememberSession(connection, output.session_id);
    return output;
  }
  const selector = typeof input.session === 'string' ? input.session : undefined;
  const session = resolveSession(context.home, selector, context.hints);
  jitFor(session.record.file_count);
  // A session of a zip outside the caller's roots (one removed since it was opened) is not its to use.
  context.zips?.assert(zipPlace(session.record), `Session ${quote(session.record.name)}'s zip`);
  rememberSession(connection, session.record.id);
  const withSession: SessionContext = { ...context, session };
  return withArchive(session.record.source_path, () =>
    command.session === 'read'
      ? run(withSession) // reads never take the lock (lock.ts)
      : withSessionLock(session, command.name, () => run(withSession), lockWait(context)),
  );
}
