/**
 * What the folder the workspaces live in can hold, for open's checks and
 * inspect's report of them: whether it folds case (probed: case-probe.ts),
 * whether Windows names rules apply, and where it is (for the path-length
 * limit: entry-paths.ts).
 */
import fs from 'node:fs';
import { workspacesDir } from '../session/data-dir.ts';
import { foldsCase } from '../rules/case-probe.ts';
import type { FolderRules } from '../rules/folder-rules.ts';

export interface WorkspaceTarget {
  workspaces: string;
  rules: FolderRules;
}

/**
 * The target for a new session under `home`. With `create`, the workspaces
 * folder is made first (as open will); without (inspect), nothing is made.
 */
export function workspaceTarget(home: string, create: boolean): WorkspaceTarget {
  const workspaces = workspacesDir(home);
  if (create) fs.mkdirSync(workspaces, { recursive: true });
  // Where no probe can be made (not there yet, or not writable: open then fails making its folder), the
  // platform's default folders decide.
  const caseInsensitive = foldsCase(workspaces) ?? (process.platform === 'win32' || process.platform === 'darwin');
  return { workspaces, rules: folderRules(caseInsensitive) };
}

/** The rules of a folder that does (or does not) fold case, on this platform: an open session's, from what its record says. */
export function folderRules(caseInsensitive: boolean): FolderRules {
  return { caseInsensitive, windowsNames: process.platform === 'win32' };
}
