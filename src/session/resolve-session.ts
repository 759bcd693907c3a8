import fs from 'node:fs';
import { ZipfsError, isSystemError, quote } from '../base/errors.ts';
import { workspaceOfFolder } from './workspace-of-folder.ts';
import { sessionDamaged } from './manifest.ts';
import { scanWorkspaces, touchSession, type DamagedSession, type Session } from './session-store.ts';
import { invocation, param } from '../base/message-marks.ts';

/** Where a session may be named when the caller does not name one (CLI only). */
export interface SessionHints {
  /** $ZIPFS_SESSION */
  env?: string;
  /** The working directory: inside a workspace, it selects that workspace, as git finds its repository. */
  cwd?: string;
  /** The id of the session an MCP connection opened, named or used last (session/connections.ts), while it exists. */
  remembered?: string;
}

const MIN_ID_PREFIX = 8;

function names(sessions: Session[]): string {
  return sessions.map((s) => s.record.name).join(', ');
}

/** Finds a session by name, id, or unique id prefix of 8+ characters. */
function select(sessions: Session[], damaged: DamagedSession[], selector: string, origin: string): Session {
  const exact = sessions.find((s) => s.record.name === selector || s.record.id === selector);
  if (exact) return exact;
  const broken = damaged.find((d) => d.name === selector);
  if (broken) throw sessionDamaged(broken.dir, broken.reason);
  if (selector.length >= MIN_ID_PREFIX) {
    const matches = sessions.filter((s) => s.record.id.startsWith(selector));
    if (matches.length === 1) return matches[0]!;
    if (matches.length > 1) {
      throw new ZipfsError(
        'AMBIGUOUS_SESSION',
        `${origin} ${quote(selector)} is a prefix of several session ids (${names(matches)}); give more of the ` +
          `id or the session name.`,
      );
    }
  }
  const open =
    sessions.length > 0
      ? `Open sessions: ${names(sessions)}.`
      : `No sessions are open; open an archive first (${invocation('open', { path: '<file.zip>' })}).`;
  throw new ZipfsError('SESSION_NOT_FOUND', `${origin} ${quote(selector)} matches no session. ${open}`);
}

function sessionAt(home: string, cwd: string, sessions: Session[], damaged: DamagedSession[]): Session | undefined {
  const name = workspaceOfFolder(home, cwd)?.session;
  if (name === undefined) return undefined;
  const broken = damaged.find((d) => d.name === name);
  if (broken) throw sessionDamaged(broken.dir, broken.reason);
  return sessions.find((s) => s.record.name === name);
}

/**
 * Resolves the session an operation targets (DESIGN.md, "Resolution"): the
 * explicit selector, then $ZIPFS_SESSION, then the working directory, then the
 * one the MCP connection used last (when it is still open), then the only
 * open session. Several open and none chosen is AMBIGUOUS_SESSION, whose
 * message lists them so the caller can choose.
 */
export function resolveSession(
  home: string,
  selector: string | undefined,
  hints: SessionHints = {},
  options: { intact?: boolean } = {},
): Session {
  const { sessions, damaged } = scanWorkspaces(home);
  let session: Session | undefined;
  if (selector !== undefined) session = select(sessions, damaged, selector, 'Session');
  else if (hints.env) session = select(sessions, damaged, hints.env, 'ZIPFS_SESSION');
  else if (hints.cwd) session = sessionAt(home, hints.cwd, sessions, damaged);
  if (!session && hints.remembered) session = sessions.find((s) => s.record.id === hints.remembered);
  if (!session) {
    if (sessions.length === 0) {
      // the only one there is: say what is wrong with it
      if (damaged.length === 1) throw sessionDamaged(damaged[0]!.dir, damaged[0]!.reason);
      const broken =
        damaged.length > 0
          ? ` (damaged, not usable: ${damaged.map((d) => d.name).join(', ')}; name one to see why)`
          : '';
      throw new ZipfsError(
        'NO_SESSIONS',
        `No sessions are open${broken}. Open an archive first: ${invocation('open', { path: '<file.zip>' })}.`,
      );
    }
    if (sessions.length > 1) {
      throw new ZipfsError(
        'AMBIGUOUS_SESSION',
        `${sessions.length} sessions are open (${names(sessions)}); say which one with ${param('session', 'NAME')}.`,
      );
    }
    session = sessions[0]!;
  }
  if (options.intact !== false) assertWorkspaceIntact(session);
  touchSession(session);
  return session;
}

/**
 * The workspace folder must be a real folder inside the session: missing or a
 * file is damage; a symbolic link (to another folder) would make status and
 * sync read, and pack into the zip, whatever it points at.
 */
export function assertWorkspaceIntact(session: Session): void {
  let stats: fs.Stats;
  try {
    stats = fs.lstatSync(session.contents);
  } catch (error) {
    if (isSystemError(error, 'ENOENT')) throw sessionDamaged(session.dir, 'its workspace folder contents/ is missing');
    throw error;
  }
  if (stats.isSymbolicLink()) {
    throw new ZipfsError(
      'PATH_TRAVERSAL',
      `The workspace folder ${session.contents} is a symbolic link (to ${fs.readlinkSync(session.contents)}); ` +
        `zipfs reads and syncs only files inside the workspace. Move the folder itself back in place of the link, ` +
        `or remove the session with ${invocation('close', { session: session.record.name, force: true })}.`,
    );
  }
  if (!stats.isDirectory()) throw sessionDamaged(session.dir, 'its workspace folder contents/ is not a folder');
}
