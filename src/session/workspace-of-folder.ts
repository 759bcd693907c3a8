/**
 * Which workspace a folder is in, the way git finds its repository from the
 * working folder. Folders are compared by identity, not by path text, so a
 * working folder typed in another case on a folder that folds case (macOS,
 * Windows), or reached through a link, still picks its session.
 */
import fs from 'node:fs';
import path from 'node:path';
import { workspacesDir } from './data-dir.ts';
import { identityOf } from './same-file.ts';

/**
 * The session whose folder holds `cwd`, and where: `folder` is the `/`-separated
 * path inside its workspace ('' for the root), undefined when `cwd` is in the
 * session's folder but not in its contents.
 */
export function workspaceOfFolder(
  home: string,
  cwd: string,
): { session: string; folder: string | undefined } | undefined {
  const workspaces = workspacesDir(home);
  const workspacesId = identityOf(workspaces);
  if (workspacesId === undefined) return undefined;
  const trail: string[] = []; // the names below the session's folder, outermost first
  for (let at = path.resolve(cwd); ; at = path.dirname(at)) {
    const parent = path.dirname(at);
    if (parent === at) return undefined; // reached the root: not in a workspace
    if (identityOf(parent) === workspacesId) {
      const session = nameOf(workspaces, at);
      if (session === undefined) return undefined;
      const [contents, ...rest] = trail;
      const inContents =
        contents !== undefined &&
        identityOf(path.join(at, contents)) === identityOf(path.join(workspaces, session, 'contents'));
      return { session, folder: inContents ? rest.join('/') : undefined };
    }
    trail.unshift(path.basename(at));
  }
}

/** The name a session folder has in the workspaces folder: the one with its identity, typed in whatever case. */
function nameOf(workspaces: string, sessionDir: string): string | undefined {
  const typed = path.basename(sessionDir);
  const wanted = identityOf(sessionDir);
  if (wanted === undefined) return undefined;
  if (identityOf(path.join(workspaces, typed)) === wanted && fs.readdirSync(workspaces).includes(typed)) return typed;
  return fs.readdirSync(workspaces).find((name) => identityOf(path.join(workspaces, name)) === wanted);
}
