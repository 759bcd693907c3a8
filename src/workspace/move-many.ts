/**
 * move with several sources (issue 31), as mv takes them: every source goes
 * into the folder `to` under its own name (`zipfs mv a b c DEST/`). All are
 * resolved and checked first (each exists, no two land on one name, nothing
 * is replaced without `overwrite`, no folder moves into itself), and nothing
 * moves when one fails. Then what each needs on disk is extracted at once (a
 * lazy session's entries) and each is moved, its result reported.
 */
import { ZipfsError, quote } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import { withBeneath } from '../files/beneath.ts';
import { moveWorkspacePath } from '../files/move.ts';
import { normaliseToolPath } from '../files/safe-path.ts';
import { problemList } from './delete-many.ts';
import { expandPaths } from './expand-paths.ts';
import type { ChangeOptions, Workspace } from './workspace.ts';

export interface MoveResult {
  path: string;
  to: string;
  failure?: string;
}

interface Planned {
  from: string;
  to: string;
}

function plan(workspace: Workspace, sources: readonly string[], into: string, overwrite: boolean): Planned[] {
  const folder = normaliseToolPath(into);
  return withBeneath(workspace.root, (beneath) => {
    const problems: string[] = [];
    try {
      const seen = workspace.stat(beneath, folder);
      const isFolder = seen.archived ? seen.archived.type === 'dir' : seen.disk!.stats.isDirectory();
      if (!isFolder)
        throw new ZipfsError(
          'INVALID_INPUT',
          `Nothing was moved: ${quote(folder)} is not a folder; with several paths, to is the folder they move into.`,
        );
    } catch (error) {
      if (!(error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND')) throw error; // made as they move
    }
    const targets = expandPaths(workspace, beneath, sources, {
      globTypes: ['file', 'symlink', 'dir'],
      dropNested: true,
    });
    const planned: Planned[] = [];
    const landing = new Map<string, string>();
    for (const { relative: from, type } of targets) {
      const to =
        folder === '' ? from.slice(from.lastIndexOf('/') + 1) : `${folder}/${from.slice(from.lastIndexOf('/') + 1)}`;
      if (from === '') problems.push('"/" is the workspace root, which cannot move');
      else if (type === 'dir' && `${folder}/`.startsWith(`${from}/`))
        problems.push(`${quote(folder)} is inside ${quote(from)} (a folder cannot move into itself)`);
      else if (landing.has(to))
        problems.push(`${quote(from)} and ${quote(landing.get(to)!)} would both be ${quote(to)}`);
      else if (to !== from && !overwrite && exists(workspace, beneath, to))
        problems.push(`${quote(to)} already exists (pass ${param('overwrite')} to replace it)`);
      landing.set(to, from);
      planned.push({ from, to });
    }
    if (problems.length > 0) throw new ZipfsError('INVALID_INPUT', `Nothing was moved: ${problemList(problems)}.`);
    return planned;
  });
}

function exists(workspace: Workspace, beneath: Parameters<Workspace['stat']>[0], relative: string): boolean {
  try {
    workspace.stat(beneath, relative);
    return true;
  } catch (error) {
    if (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND') return false;
    throw error;
  }
}

export interface MoveManyRequest {
  sources: readonly string[];
  /** The folder they move into; made when missing. */
  into: string;
  overwrite: boolean;
  change: ChangeOptions;
}

export async function moveMany(workspace: Workspace, request: MoveManyRequest): Promise<MoveResult[]> {
  const planned = plan(workspace, request.sources, request.into, request.overwrite);
  // Both ends of every move at once: a lazy session extracts what they need in one pass over the zip.
  await workspace.prepareChange(
    planned.flatMap(({ from, to }) => [from, to]),
    request.change,
  );
  return planned.map(({ from, to }) => {
    try {
      moveWorkspacePath(workspace.root, from, to, request.overwrite);
      return { path: from, to };
    } catch (error) {
      if (error instanceof ZipfsError) return { path: from, to, failure: `${error.code}: ${error.message}` };
      throw error;
    }
  });
}
