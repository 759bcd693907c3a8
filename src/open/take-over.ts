/**
 * Whether `open --name X` may have the name X when a session is already
 * there. A CI job killed half-way leaves its session behind, and its retry
 * opens the same name: that session is orphaned (its owner process is gone,
 * owner.ts), and if it holds no unsynced changes nothing is lost by removing
 * it, so the retry takes it over. Any other case is NAME_COLLISION, saying
 * which case it is and what to run: an orphan with changes is never thrown
 * away without being asked (`prune --orphaned`, `close --force`).
 */
import { ZipfsError } from '../base/errors.ts';
import { invocation } from '../base/message-marks.ts';
import { pendingChanges } from '../sync/unsynced.ts';
import { withSessionLock } from '../session/lock.ts';
import { busyWith } from '../session/in-use.ts';
import { readSessionHead, sessionDamaged } from '../session/manifest.ts';
import type { LockWait } from '../session/lock.ts';
import { keepOnExit, removeOnExit } from '../base/exit-cleanup.ts';
import { ownerState, sameOwner, type SessionOwner } from '../session/owner.ts';
import { loadSession, removeSession, type Session } from '../session/session-store.ts';
import fs from 'node:fs';
import { sessionPaths } from '../session/data-dir.ts';

/**
 * Makes `name` free for a new session, or throws NAME_COLLISION. Returns a
 * warning when an orphaned session was taken over (removed), else undefined.
 */
export async function claimName(
  home: string,
  name: string,
  caller: SessionOwner | undefined,
): Promise<string | undefined> {
  if (!fs.existsSync(sessionPaths(home, name).dir)) return undefined;
  const session = loadSession(home, name);
  const other = `choose another name, or close that session first (${invocation('close', { session: name })})`;
  if (!session)
    throw new ZipfsError('NAME_COLLISION', `A session named "${name}" is already there (it cannot be read); ${other}.`);
  const owner = session.record.owner;
  const state = ownerState(owner);
  if (sameOwner(owner, caller)) {
    throw new ZipfsError(
      'NAME_COLLISION',
      `A session named "${name}" is already open, opened by this same job ` +
        `(process ${owner!.pid}); use it (${invocation('status', { session: name })}), or ${other}.`,
    );
  }
  if (state === 'alive') {
    throw new ZipfsError(
      'NAME_COLLISION',
      `A session named "${name}" is open and belongs to process ${owner!.pid}, which is still running (the job that ` +
        `opened it); it is not taken over. Choose another name, or let that job finish.`,
    );
  }
  if (state === 'unknown') {
    const why = owner
      ? `its owner is process ${owner.pid} on another host (${owner.host})`
      : 'it records no owner process (an older zipfs opened it)';
    throw new ZipfsError(
      'NAME_COLLISION',
      `A session named "${name}" is already open and ${why}, so zipfs cannot tell whether a job still uses ` +
        `it; ${other}.`,
    );
  }
  const holder = busyWith(session);
  if (holder)
    throw new ZipfsError(
      'NAME_COLLISION',
      `A session named "${name}" was left by process ${owner!.pid}, which is gone, but ` +
        `process ${holder.pid} is working in it now (zipfs ${holder.command}); choose another name, or retry when ` +
        `it has finished.`,
    );
  const pending = pendingChanges(session);
  if (pending.count > 0) {
    throw new ZipfsError(
      'NAME_COLLISION',
      `A session named "${name}" was left by process ${owner!.pid}, which is gone (a killed job?), with unsynced ` +
        `changes (${pending.summary}), so it is not taken over. Look at ` +
        `them (${invocation('status', { session: name })}), then remove ` +
        `it (${invocation('close', { session: name, force: true })}, or every orphaned session with its ` +
        `changes: ${invocation('prune', { orphaned: true, discard_changes: true })}) and open again; or choose ` +
        `another name.`,
    );
  }
  try {
    await withSessionLock(session, 'open', () => removeSession(session), { waitMs: 0 });
  } catch (error) {
    if (error instanceof ZipfsError && error.code === 'LOCKED')
      throw new ZipfsError(
        'NAME_COLLISION',
        `A session named "${name}" is in use by another process right now; choose another name, or retry when it ` +
          `has finished.`,
      );
    throw error;
  }
  return `took over session "${name}" left by process ${owner!.pid}, which is gone; it had no unsynced changes`;
}

/**
 * Makes the caller the owner of a session it reuses (open of a zip that already has one) when the
 * session's owner is gone or unknown: the job now working in it is the caller, and an orphan's
 * owner would let `prune --orphaned` remove it under the caller's unsynced changes. A live owner's
 * session stays its owner's. Under the lock, line 1 of the manifest (the session record) is replaced
 * and every other byte copied as it is, into a draft renamed over the manifest.
 */
export async function adoptSession(session: Session, caller: SessionOwner | undefined, wait: LockWait): Promise<void> {
  const owner = session.record.owner;
  if (!caller || sameOwner(owner, caller)) return;
  if (owner !== undefined && ownerState(owner) !== 'gone') return;
  await withSessionLock(
    session,
    'open',
    () => {
      const bytes = fs.readFileSync(session.manifest);
      const head = readSessionHead(session.manifest);
      if (!head.record) throw sessionDamaged(session.dir, head.problem);
      const end = bytes.indexOf(0x0a);
      const draft = `${session.manifest}.owner-${globalThis.crypto.randomUUID()}`;
      removeOnExit(draft);
      try {
        fs.writeFileSync(
          draft,
          Buffer.concat([
            Buffer.from(JSON.stringify({ ...head.record, owner: caller })),
            end < 0 ? Buffer.from('\n') : bytes.subarray(end),
          ]),
        );
        fs.renameSync(draft, session.manifest);
      } finally {
        fs.rmSync(draft, { force: true });
        keepOnExit(draft);
      }
    },
    wait,
  );
  session.record.owner = caller;
}
