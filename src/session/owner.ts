/**
 * Who a session belongs to: the process of the job that opened it. For the CLI
 * that is zipfs's parent (the job's shell: zipfs itself exits after each
 * command), for `zipfs exec` and the MCP server their own process. A session
 * whose owner lives belongs to a running job, which prune leaves alone; one
 * whose owner is gone is orphaned (a killed job's), which `prune --orphaned`
 * removes and `open --name` may take over. A pid alone is not an identity
 * (pids are reused), so where /proc tells it the process's start time is
 * recorded too, and a live pid that started at another time is another process.
 */
import fs from 'node:fs';
import os from 'node:os';
import { ZipfsError, quote } from '../base/errors.ts';
import { isProcessAlive } from './process-alive.ts';

export interface SessionOwner {
  pid: number;
  host: string;
  /** Start time in clock ticks after boot (/proc/PID/stat field 22); absent where there is no /proc. */
  start?: number;
}

/**
 * The variable naming the process that owns what this zipfs opens, for jobs whose shell is not the job (each CI step a
 * new shell).
 */
export const OWNER_PID_ENV = 'ZIPFS_OWNER_PID';

/**
 * When `pid` started, from /proc/PID/stat; the command name in field 2 may hold spaces and parentheses, so fields are
 * counted after its last ')'.
 */
export function processStart(pid: number): number | undefined {
  let stat: string;
  try {
    stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const start = Number(fields[19]); // field 22 overall; fields[0] is field 3
  return Number.isSafeInteger(start) ? start : undefined;
}

export function ownerOf(pid: number): SessionOwner {
  const start = processStart(pid);
  return { pid, host: os.hostname(), ...(start === undefined ? {} : { start }) };
}

/** The owner of what a CLI call opens: $ZIPFS_OWNER_PID when set, else zipfs's parent process. */
export function cliOwner(env: NodeJS.ProcessEnv): SessionOwner {
  const raw = env[OWNER_PID_ENV]?.trim();
  if (!raw) return ownerOf(process.ppid);
  const pid = Number(raw);
  if (!Number.isSafeInteger(pid) || pid <= 0) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Environment variable ${OWNER_PID_ENV}=${quote(raw)} is malformed: it takes the pid of the process a ` +
        `session belongs to (a whole number above 0), such as the job's shell ($$). Correct it, or unset it to use ` +
        `zipfs's parent process.`,
    );
  }
  // A pid naming no process would make every session this job opens orphaned from its start, and
  // another job's `prune --orphaned` would take it: refused, before anything is opened.
  if (!isProcessAlive(pid)) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Environment variable ${OWNER_PID_ENV}=${pid} names no running process, so the sessions this job opens ` +
        `would be orphaned at once. Set it to the pid of a process that lives as long as the job (the job's shell: ` +
        `$$; in GitHub Actions the runner's worker: $PPID in the first step), or unset it to use zipfs's parent ` +
        `process.`,
    );
  }
  return ownerOf(pid);
}

/** A record's owner as far as it can be trusted: an old manifest has none, and a hand-edited one may be any shape. */
export function validOwner(owner: unknown): SessionOwner | undefined {
  if (typeof owner !== 'object' || owner === null) return undefined;
  const { pid, host, start } = owner as Record<string, unknown>;
  if (!Number.isSafeInteger(pid) || typeof host !== 'string' || (start !== undefined && !Number.isSafeInteger(start)))
    return undefined;
  return owner as SessionOwner;
}

/**
 * 'alive': the owner runs; 'gone': it does not (its pid is free, or taken by a process that started
 * later); 'unknown': no owner recorded (an older zipfs opened it), or one on another host.
 */
export type OwnerState = 'alive' | 'gone' | 'unknown';

export function ownerState(recorded: unknown): OwnerState {
  const owner = validOwner(recorded);
  if (!owner || owner.host !== os.hostname()) return 'unknown';
  if (!isProcessAlive(owner.pid)) return 'gone';
  if (owner.start === undefined) return 'alive';
  const start = processStart(owner.pid);
  return start === undefined || start === owner.start ? 'alive' : 'gone';
}

export function sameOwner(recorded: unknown, caller: SessionOwner | undefined): boolean {
  const owner = validOwner(recorded);
  return (
    owner !== undefined &&
    caller !== undefined &&
    owner.pid === caller.pid &&
    owner.host === caller.host &&
    owner.start === caller.start
  );
}
