import fs from 'node:fs';
import { statePath } from '../remote/mirror.ts';
import path from 'node:path';
import { sessionPaths, workspacesDir } from './data-dir.ts';
import { isSystemError, quote } from '../base/errors.ts';
import { readSessionHead, readSessionRecord, type SessionRecord } from './manifest.ts';
import { removeTree } from './remove-tree.ts';
import { sameFile } from './same-file.ts';

/** A session found on disk: its record plus where its files are. */
export interface Session {
  record: SessionRecord;
  dir: string;
  contents: string;
  manifest: string;
  /** The manifest's modification time: touched on every use, so reads never rewrite it. */
  lastAccessedAt: Date;
}

/** A folder in workspaces/ that should be a session but cannot be used as one. */
export interface DamagedSession {
  name: string;
  dir: string;
  /** Why, as a clause: "line 1 of its manifest.jsonl is not valid JSON". */
  reason: string;
}

/**
 * Every folder in workspaces/: the sessions, and the folders that look like
 * sessions but whose manifest this zipfs cannot use (damaged, or written by
 * another version). Hidden folders (open and close in progress) are neither.
 */
export function scanWorkspaces(home: string): { sessions: Session[]; damaged: DamagedSession[] } {
  let names: fs.Dirent[];
  try {
    names = fs.readdirSync(workspacesDir(home), { withFileTypes: true });
  } catch (error) {
    if (isSystemError(error, 'ENOENT', 'ENOTDIR')) return { sessions: [], damaged: [] };
    throw error;
  }
  const sessions: Session[] = [];
  const damaged: DamagedSession[] = [];
  for (const entry of names.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith('.') || !entry.isDirectory()) continue;
    const paths = sessionPaths(home, entry.name);
    const head = readSessionHead(paths.manifest);
    if (head.problem !== undefined) {
      damaged.push({ name: entry.name, dir: paths.dir, reason: head.problem });
      continue;
    }
    if (head.record.name !== entry.name) {
      damaged.push({
        name: entry.name,
        dir: paths.dir,
        reason: `its manifest names it ${quote(head.record.name)} (the folder was renamed)`,
      });
      continue;
    }
    const session = withAccessTime(head.record, paths);
    if (session) sessions.push(session);
  }
  return { sessions, damaged };
}

/** Every usable session, by name. */
export function listSessions(home: string): Session[] {
  return scanWorkspaces(home).sessions;
}

/** The open session of a zip, if it has one (by its real path: a link or a relative path names the same file). */
/** The session of the zip at `zipPath`, whatever the case or separators of the path it was opened by (same-file.ts). */
export function sessionOf(home: string, zipPath: string): Session | undefined {
  return listSessions(home).find((session) => sameFile(session.record.source_path, zipPath));
}

export function loadSession(home: string, name: string): Session | undefined {
  const paths = sessionPaths(home, name);
  const record = readSessionRecord(paths.manifest);
  if (!record || record.name !== name) return undefined;
  return withAccessTime(record, paths);
}

function withAccessTime(record: SessionRecord, paths: ReturnType<typeof sessionPaths>): Session | undefined {
  try {
    return { record, ...paths, lastAccessedAt: fs.statSync(paths.manifest).mtime };
  } catch {
    return undefined; // closed meanwhile
  }
}

/** Marks a session as used now. Best effort: a failed touch must not fail the operation. */
export function touchSession(session: Session): void {
  const now = new Date();
  try {
    fs.utimesSync(session.manifest, now, now);
    session.lastAccessedAt = now;
  } catch {
    // The session may have been closed meanwhile; the operation itself will say so.
  }
}

/**
 * Removes a session's folder. It is first renamed to a hidden name, which is
 * atomic, so the session disappears at once and a crash mid-removal leaves
 * only a hidden leftover (removed by prune), never a half-deleted session.
 */
export function removeSessionFolder(dir: string): void {
  const doomed = path.join(path.dirname(dir), `.closing-${globalThis.crypto.randomUUID()}`);
  fs.renameSync(dir, doomed);
  removeTree(doomed);
}

export function removeSession(session: Session): void {
  removeSessionFolder(session.dir);
  // A remote archive's mirror goes with the last session that reads it (its fetched bytes are of no use to others).
  const mirror = session.record.source_path;
  if (!session.record.remote) return;
  const home = path.dirname(path.dirname(session.dir));
  if (listSessions(home).some((other) => other.record.source_path === mirror)) return;
  for (const file of [mirror, statePath(mirror)]) fs.rmSync(file, { force: true });
}
