/**
 * Restore: paths of the workspace put back as the zip has them now or as the base has them, as
 * `git restore --source` does (DESIGN.md, "Merges": resolving is done in the session). A path the
 * version has is written with its bytes (read through versions.ts, checked as open checks what it
 * extracts); a path the base has and the version does not is deleted from the workspace, as git
 * restore's default (no-overlay) mode removes a tracked file the source lacks. A file only the
 * workspace has (it added it) is never matched: restore leaves it and says so. What already holds
 * the version's bytes is left alone (a lazy session's untouched entry equal to it needs nothing).
 *
 * After a restore from the zip, the workspace's file is the zip's: the base stays the base until
 * the next sync, whose merge sees the same change on both sides, which is no conflict. A file the
 * zip changed since the base is noted as merged with the zip's entry (session/merge-state.ts, as a
 * merge notes a file it marked): edited after the restore, it is the resolution, taken whole by the
 * next merge while the zip's entry is still that one, as git takes a file once it is resolved.
 */
import { ZipfsError, quote } from '../base/errors.ts';
import { withBeneath, type Beneath } from '../files/beneath.ts';
import { deleteWorkspacePath, writeWorkspaceFile } from '../files/edit.ts';
import { makeWorkspaceFolder } from '../files/make-folder.ts';
import { normaliseToolPath } from '../files/safe-path.ts';
import { sessionFolderRules } from '../rules/folder-rules.ts';
import type { Limits } from '../rules/limits.ts';
import type { EntryRecord } from '../session/manifest.ts';
import { addToMergeState, type MergeState } from '../session/merge-state.ts';
import type { Session } from '../session/session-store.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { withVersion, type Version, type VersionItem, type VersionName } from '../workspace/versions.ts';
import type { Seen, Workspace } from '../workspace/workspace.ts';
import { addedCrc } from './content-match.ts';

export type RestoreAction = 'written' | 'deleted' | 'unchanged';

export interface RestoreAnswer {
  restored: { path: string; action: RestoreAction }[];
  skipped: { path: string; reason: string }[];
}

const GLOB = /[*?[{]/;

/** The paths `patterns` name among `candidates` (sorted), and the patterns that name none. */
export function matchPaths(patterns: readonly string[], candidates: readonly string[]) {
  const chosen = new Set<string>();
  const unmatched: string[] = [];
  for (const raw of patterns) {
    const before = chosen.size;
    const pattern = GLOB.test(raw) ? raw.replace(/^\.?\/+/, '').replace(/\/+$/, '') : normaliseToolPath(raw);
    const under = pattern === '' ? '' : `${pattern}/`;
    for (const at of candidates) if (at === pattern || at.startsWith(under)) chosen.add(at);
    if (chosen.size === before && GLOB.test(pattern)) {
      const glob = new Bun.Glob(pattern);
      const whole = pattern.includes('/');
      for (const at of candidates) if (glob.match(whole ? at : at.slice(at.lastIndexOf('/') + 1))) chosen.add(at);
    }
    if (chosen.size === before) unmatched.push(raw);
  }
  return { chosen, unmatched };
}

/** What the workspace has at `relative` (on disk, or only in the archive), or undefined for nothing. */
function seenAt(workspace: Workspace, beneath: Beneath, relative: string): Seen | undefined {
  try {
    return workspace.stat(beneath, relative);
  } catch (error) {
    if (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND') return undefined;
    throw error;
  }
}

interface Restoring {
  session: Session;
  workspace: Workspace;
  version: Version;
  beneath: Beneath;
  base: Map<string, EntryRecord>;
  /** Files written as the zip has them where it changed them since the base: merged with its entry. */
  merged: MergeState;
}

/** Whether what the workspace has at the path holds the item's bytes already. */
function holds(r: Restoring, seen: Seen, item: VersionItem): boolean {
  if (seen.archived) {
    const record = r.base.get(seen.relative);
    return record !== undefined && record.crc32 === item.crc32 && record.size === item.size;
  }
  const stats = seen.disk!.stats;
  return stats.isFile() && stats.size === item.size && addedCrc(r.beneath, seen.relative) === item.crc32;
}

/** One path put back; a reason when it cannot be. */
function restoreOne(r: Restoring, relative: string): RestoreAction | { reason: string } {
  const item = r.version.find(relative);
  const seen = seenAt(r.workspace, r.beneath, relative);
  const folderThere = seen?.archived?.type === 'dir' || seen?.disk?.stats.isDirectory() === true;
  if (!item) {
    if (!seen) return 'unchanged';
    if (folderThere) return 'unchanged'; // folders go with what is in them
    if (seen.archived) r.workspace.removeArchived(relative, false);
    else deleteWorkspacePath(r.session.contents, relative, false);
    return 'deleted';
  }
  if (item.type === 'dir') {
    if (folderThere) return 'unchanged';
    if (seen) return { reason: `the ${r.version.name}'s is a folder, the workspace's a file: delete it first` };
    makeWorkspaceFolder(r.session.contents, relative, true);
    return 'written';
  }
  if (item.type === 'symlink') return { reason: 'a link: restore writes files only; read it and recreate it' };
  if (folderThere)
    return { reason: `a folder in the workspace, a file in the ${r.version.name}: delete the folder first` };
  if (seen?.disk?.stats.isSymbolicLink()) return { reason: 'a link in the workspace: delete it first' };
  const record = r.base.get(relative);
  if (r.version.name === 'zip' && (!record || record.crc32 !== item.crc32 || record.size !== item.size))
    r.merged[relative] = { crc32: item.crc32, size: item.size };
  if (seen && holds(r, seen, item)) return 'unchanged';
  writeWorkspaceFile(r.session.contents, relative, r.version.read(item), true, {
    rules: sessionFolderRules(r.session.record),
  });
  return 'written';
}

/** Restores the paths and globs `patterns` from `from`; the caller holds the session's lock. */
export async function restorePaths(
  session: Session,
  patterns: readonly string[],
  from: VersionName,
  limits: Limits,
): Promise<RestoreAnswer> {
  const workspace = workspaceOf(session);
  const whole = workspace.base().whole();
  return withVersion(session, from, limits, async (version) => {
    const candidates = [...new Set([...version.paths, ...whole.map((record) => record.path)])]
      .filter((at) => at !== '')
      .sort();
    const { chosen, unmatched } = matchPaths(patterns, candidates);
    // What is restored from the version is read from it: fetched first where it is a remote archive's mirror.
    await version.fetch(
      [...chosen].flatMap((at) => ((version.find(at)?.index ?? -1) >= 0 ? [version.find(at)!.index] : [])),
    );
    const answer: RestoreAnswer = { restored: [], skipped: [] };
    withBeneath(session.contents, (beneath) => {
      for (const raw of unmatched) {
        const there = GLOB.test(raw) ? undefined : seenAt(workspace, beneath, raw);
        answer.skipped.push({
          path: raw,
          reason: there
            ? `only in the workspace (it added it), in neither the ${from} nor the base: left as it is; delete ` +
              'it to drop it'
            : `nothing in the ${from} or the base matches`,
        });
      }
      const base = new Map(whole.map((record) => [record.path, record]));
      const r: Restoring = { session, workspace, version, beneath, base, merged: {} };
      // Folders first (a file's folder is there before it), deletions of a folder's files before the folder.
      for (const relative of [...chosen].sort()) {
        const done = restoreOne(r, relative);
        if (typeof done === 'string') answer.restored.push({ path: relative, action: done });
        else answer.skipped.push({ path: relative, ...done });
      }
      if (Object.keys(r.merged).length > 0) addToMergeState(session.dir, r.merged);
    });
    if (answer.restored.length === 0 && answer.skipped.every((s) => s.reason.startsWith('nothing in')))
      throw new ZipfsError(
        'PATH_NOT_FOUND',
        `Nothing in the ${from} or the base matches ${patterns.map(quote).join(', ')}; give a path, a folder, or ` +
          'a glob (*.xml matches names at any depth, word/** a whole path).',
      );
    return answer;
  });
}
