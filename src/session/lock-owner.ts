/**
 * Who holds a lock: the owner record a lock file holds, and whether that holder still runs (a lock whose holder is
 * dead is taken over: lock.ts).
 */
import fs from 'node:fs';
import os from 'node:os';
import { isProcessAlive } from './process-alive.ts';
import { processStart } from './owner.ts';
import { lockPath } from './lock-targets.ts';
import type { Session } from './session-store.ts';

export interface LockOwner {
  pid: number;
  host: string;
  command: string;
  since: string;
  /** The holder's start time (owner.ts processStart); absent where there is no /proc, and in older zipfs's locks. */
  start?: number;
}

export function readOwner(file: string): LockOwner | undefined {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as LockOwner;
  } catch {
    return undefined;
  }
}

/** Whether the lock's holder still runs: its pid lives and, where recorded, started when the holder did. */
export function isAlive(owner: LockOwner): boolean {
  if (owner.host !== os.hostname()) return true; // another host's process: cannot tell, assume it lives
  if (!isProcessAlive(owner.pid)) return false;
  if (!Number.isSafeInteger(owner.start)) return true;
  const start = processStart(owner.pid);
  return start === undefined || start === owner.start;
}

/** Whether another live process holds the session's lock (prune skips such sessions). */
export function lockedByOther(session: Session): LockOwner | undefined {
  const owner = readOwner(lockPath(session));
  return owner && owner.pid !== process.pid && isAlive(owner) ? owner : undefined;
}

/** This process as the holder of a lock or an in-use mark (in-use.ts), doing `command`. */
export function ownRecord(command: string): LockOwner {
  return { pid: process.pid, host: os.hostname(), command, since: new Date().toISOString(), ...ownStart() };
}

/** This process's start time, read once: every lock it takes records it. */
let ownStartTime: { start?: number } | undefined;
export function ownStart(): { start?: number } {
  if (!ownStartTime) {
    const start = processStart(process.pid);
    ownStartTime = start === undefined ? {} : { start };
  }
  return ownStartTime;
}
