/**
 * A mark that a process is working in a session without holding its lock yet:
 * `zipfs write` reading its content from stdin resolves the session first and
 * takes the lock only to write. prune and open --name's take-over treat a
 * session with a live mark as busy, as they treat a held lock, so a job's
 * cleanup cannot remove a session under a write still reading its input.
 * The mark is `in-use-<pid>` in the session's folder (removed when the command
 * ends, and with the session); a mark whose process is gone counts for nothing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isAlive, lockedByOther, type LockOwner } from './lock.ts';
import { ownRecord, readOwner } from './lock-owner.ts';
import type { Session } from './session-store.ts';

const MARK = 'in-use-';

/** Marks the session in use by this process until the returned function is called (or the process exits). */
export function markInUse(session: Session, command: string): () => void {
  const file = path.join(session.dir, `${MARK}${process.pid}`);
  try {
    fs.writeFileSync(file, JSON.stringify(ownRecord(command)));
  } catch {
    return () => {}; // closed meanwhile, or not writable: the command itself will say so
  }
  // Not removeOnExit: a signal handler would keep a process blocked reading stdin from ending at
  // once (exit-cleanup.ts). A mark left by a killed process counts for nothing (its pid is gone).
  return () => fs.rmSync(file, { force: true });
}

/** Another live process marked in the session, if any. */
function markedByOther(session: Session): LockOwner | undefined {
  let names: string[];
  try {
    names = fs.readdirSync(session.dir).filter((name) => name.startsWith(MARK));
  } catch {
    return undefined;
  }
  for (const name of names) {
    const owner = readOwner(path.join(session.dir, name));
    if (owner && owner.pid !== process.pid && isAlive(owner)) return owner;
  }
  return undefined;
}

/** Another live process working in the session: holding its lock, or marked in it. */
export function busyWith(session: Session): LockOwner | undefined {
  return lockedByOther(session) ?? markedByOther(session);
}
