import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError } from '../errors.ts';
import { workspacesDir } from './data-dir.ts';
import { listSessions, touchSession, type Session } from './session-store.ts';

/** Where a session may be named when the caller does not name one (CLI only). */
export interface SessionHints {
  /** $ZIPFS_SESSION */
  env?: string;
  /** The working directory: inside a workspace, it selects that workspace, as git finds its repository. */
  cwd?: string;
}

const MIN_ID_PREFIX = 8;

function names(sessions: Session[]): string {
  return sessions.map((s) => s.record.name).join(', ');
}

/** Finds a session by name, id, or unique id prefix of 8+ characters. */
function select(sessions: Session[], selector: string, origin: string): Session {
  const exact = sessions.find((s) => s.record.name === selector || s.record.id === selector);
  if (exact) return exact;
  if (selector.length >= MIN_ID_PREFIX) {
    const matches = sessions.filter((s) => s.record.id.startsWith(selector));
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      throw new ZipfsError('AMBIGUOUS_SESSION', `${origin} "${selector}" is a prefix of several session ids (${names(matches)}); give more of the id or the session name.`);
    }
  }
  const open = sessions.length > 0 ? `Open sessions: ${names(sessions)}.` : 'No sessions are open; open an archive first (zipfs open <file.zip>).';
  throw new ZipfsError('SESSION_NOT_FOUND', `${origin} "${selector}" matches no session. ${open}`);
}

function sessionAt(home: string, cwd: string, sessions: Session[]): Session | undefined {
  let real: string;
  let root: string;
  try {
    real = fs.realpathSync(cwd);
    root = fs.realpathSync(workspacesDir(home));
  } catch {
    return undefined;
  }
  const relative = path.relative(root, real);
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  const name = relative.split(path.sep)[0];
  return sessions.find((s) => s.record.name === name);
}

/**
 * Resolves the session an operation targets (DESIGN.md, "Resolution"): the
 * explicit selector, then $ZIPFS_SESSION, then the working directory, then the
 * only open session. Several open and none chosen is AMBIGUOUS_SESSION, whose
 * message lists them so the caller can choose.
 */
export function resolveSession(home: string, selector: string | undefined, hints: SessionHints = {}): Session {
  const sessions = listSessions(home);
  let session: Session | undefined;
  if (selector !== undefined) session = select(sessions, selector, 'Session');
  else if (hints.env) session = select(sessions, hints.env, 'ZIPFS_SESSION');
  else if (hints.cwd) session = sessionAt(home, hints.cwd, sessions);
  if (!session) {
    if (sessions.length === 0) throw new ZipfsError('NO_SESSIONS', 'No sessions are open. Open an archive first: zipfs open <file.zip> (MCP: zipfs_open).');
    if (sessions.length > 1) {
      throw new ZipfsError('AMBIGUOUS_SESSION', `${sessions.length} sessions are open (${names(sessions)}); say which one with the session argument (CLI: --session NAME).`);
    }
    session = sessions[0]!;
  }
  touchSession(session);
  return session;
}
