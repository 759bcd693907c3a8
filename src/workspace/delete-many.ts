/**
 * delete with several paths (issue 31): every path and glob is resolved and
 * checked first (it exists, a non-empty folder has `recursive`, none is the
 * root), and nothing is deleted when one fails, as a typo must not cost the
 * other deletions half-done. Then each is deleted: the entries only in the zip
 * of all of them in one change of the manifest, what is on disk path by path,
 * each path's result reported (what fails then, a file held open on Windows,
 * is said for that path and the others still go).
 */
import { ZipfsError, quote } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import { type Beneath, namesIn, withBeneath } from '../files/beneath.ts';
import { deleteWorkspacePath } from '../files/edit.ts';
import { expandPaths, type Target } from './expand-paths.ts';
import type { Workspace } from './workspace.ts';

/** One path's result: done, or why not. */
export interface PathResult {
  path: string;
  failure?: string;
}

/** At most this many problems are named in one refusal; the count says the rest. */
const NAMED_PROBLEMS = 5;

/** Problems as one sentence: the first few named, the others counted. */
export function problemList(problems: string[]): string {
  const named = problems
    .slice(0, NAMED_PROBLEMS)
    .map((problem) => problem.replace(/\.$/, ''))
    .join('; ');
  return problems.length > NAMED_PROBLEMS ? `${named}; and ${problems.length - NAMED_PROBLEMS} more` : named;
}

function emptyFolder(workspace: Workspace, beneath: Beneath, relative: string): boolean {
  if (workspace.archivedChildren(relative).size > 0) return false;
  if (!beneath.lstat(relative)?.isDirectory()) return true;
  return namesIn(beneath.folder(relative)).length === 0;
}

/** Resolves and checks every pattern; refuses them all, naming each problem, when one fails. */
function checkedTargets(workspace: Workspace, patterns: readonly string[], recursive: boolean): Target[] {
  return withBeneath(workspace.root, (beneath) => {
    const targets = expandPaths(workspace, beneath, patterns, {
      globTypes: recursive ? ['file', 'symlink', 'dir'] : ['file', 'symlink'],
      dropNested: true,
    });
    const problems: string[] = [];
    for (const target of targets) {
      if (target.relative === '') problems.push('"/" is the workspace root (close the session to drop it all)');
      else if (target.type === 'dir' && !recursive && !emptyFolder(workspace, beneath, target.relative))
        problems.push(`${quote(target.relative)} is a folder that is not empty (pass ${param('recursive')})`);
    }
    if (problems.length > 0) throw new ZipfsError('INVALID_INPUT', `Nothing was deleted: ${problemList(problems)}.`);
    return targets;
  });
}

export function deleteMany(workspace: Workspace, patterns: readonly string[], recursive: boolean): PathResult[] {
  const targets = checkedTargets(workspace, patterns, recursive);
  workspace.removeArchived(
    targets.map((target) => target.relative),
    recursive,
  );
  return targets.map(({ relative }) => {
    try {
      deleteWorkspacePath(workspace.root, relative, recursive);
    } catch (error) {
      // Checked to be there: not on disk now means it was only in the zip (deleted above).
      if (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND') return { path: relative };
      if (error instanceof ZipfsError) return { path: relative, failure: `${error.code}: ${error.message}` };
      throw error;
    }
    return { path: relative };
  });
}
