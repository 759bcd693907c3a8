import fs from 'node:fs';
import path from 'node:path';
import { sessionPaths, workspacesDir } from './data-dir.ts';
import { readSessionRecord, type SessionRecord } from './manifest.ts';

/** A session found on disk: its record plus where its files are. */
export interface Session {
  record: SessionRecord;
  dir: string;
  contents: string;
  manifest: string;
  /** The manifest's modification time: touched on every use, so reads never rewrite it. */
  lastAccessedAt: Date;
}

/** Every session with a readable manifest, by name. Folders without one (an
 * interrupted open, a removal in progress) are not sessions. */
export function listSessions(home: string): Session[] {
  let names: string[];
  try {
    names = fs.readdirSync(workspacesDir(home));
  } catch {
    return [];
  }
  const sessions: Session[] = [];
  for (const name of names.sort()) {
    if (name.startsWith('.')) continue;
    const session = loadSession(home, name);
    if (session) sessions.push(session);
  }
  return sessions;
}

export function loadSession(home: string, name: string): Session | undefined {
  const paths = sessionPaths(home, name);
  const record = readSessionRecord(paths.manifest);
  if (!record || record.name !== name) return undefined;
  let lastAccessedAt: Date;
  try {
    lastAccessedAt = fs.statSync(paths.manifest).mtime;
  } catch {
    return undefined;
  }
  return { record, ...paths, lastAccessedAt };
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
 * Removes a session. The folder is first renamed to a hidden name, which is
 * atomic, so the session disappears at once and a crash mid-removal leaves
 * only a hidden leftover, never a half-deleted session.
 */
export function removeSession(session: Session): void {
  const doomed = path.join(path.dirname(session.dir), `.closing-${globalThis.crypto.randomUUID()}`);
  fs.renameSync(session.dir, doomed);
  fs.rmSync(doomed, { recursive: true, force: true });
}
