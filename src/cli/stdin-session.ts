/**
 * A command that takes its content from stdin (`zipfs write notes.txt < big.txt`)
 * may read for a long time before it resolves its session and takes the lock.
 * Meanwhile the session is marked in use (session/in-use.ts), so another
 * command of the same job (`zipfs prune --all`) finds it busy instead of
 * removing it under the write.
 */
import type { Command } from '../table/command.ts';
import { markInUse } from '../session/in-use.ts';
import { resolveSession, type SessionHints } from '../session/resolve-session.ts';

/** Marks the session `input` will resolve to, when the command is about to read stdin; returns the unmarking. */
export function markSessionForStdin(
  command: Command,
  input: Record<string, unknown>,
  home: string,
  hints: SessionHints,
): () => void {
  const key = command.cli.stdin;
  if (!key || input[key] !== undefined || !('session' in command.input.entries)) return () => {};
  try {
    const selector = typeof input.session === 'string' ? input.session : undefined;
    return markInUse(resolveSession(home, selector, hints), command.name);
  } catch {
    return () => {}; // no session to mark: the command says why once it runs
  }
}
