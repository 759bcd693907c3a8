/**
 * What the folder the workspaces live in can hold, for open's checks and
 * inspect's report of them: whether it folds case (probed: case-probe.ts),
 * whether Windows names rules apply, and where it is (for the path-length
 * limit: entry-paths.ts).
 */
import fs from 'node:fs';
import { workspacesDir } from '../session/data-dir.ts';
import { foldsCase } from '../rules/case-probe.ts';
import { folderRules, type FolderRules } from '../rules/folder-rules.ts';

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
  return { workspaces, rules: folderRules(foldsCase(workspaces)) };
}
