/**
 * A merge of a changed zip and the workspace (merge-plan.ts): the workspace's
 * side is the whole base, with what of it is on disk; planned against the zip
 * as it is now, which must pass the checks open makes of an archive (zip-now.ts).
 */
import { withBeneath } from '../files/beneath.ts';
import { sessionFolderRules } from '../rules/folder-rules.ts';
import type { EntryRecord } from '../session/manifest.ts';
import type { Base, OnDisk } from '../workspace/base.ts';
import { planMerge, type MergePlan } from './merge-plan.ts';
import type { SyncCounts, SyncRequest } from './sync-types.ts';
import { addedCrc } from './content-match.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';
import { checkTakenData, readZipNow, workspacesOf } from './zip-now.ts';

/** The workspace's side of a merge: the whole base, and what of it is on disk when not all of it is. */
export interface MergeSides {
  entries: EntryRecord[];
  diff: WorkspaceDiff;
  /**
   * The base's entries on disk (extracted, or a tool's file at their path), by index and path; the others are only in
   * the zip.
   */
  tracked?: OnDisk;
}

/** The sides of a merge: where entries stay in the zip, those never extracted are on this side too, unchanged. */
export function mergeSides(base: Base, diff: WorkspaceDiff): MergeSides {
  const tracked = base.onDisk(diff.entries);
  if (!tracked) return { entries: diff.entries, diff };
  const entries = base.whole();
  const states = new Map(diff.states);
  for (const entry of entries) if (!states.has(entry.index)) states.set(entry.index, 'unchanged');
  return { entries, diff: { ...diff, states }, tracked };
}

/**
 * The merge of a changed zip and the workspace, planned against the zip as it is now, which must
 * pass the checks open makes of an archive (zip-now.ts): its entries are copied into the new
 * archive and the workspace.
 */
export async function mergePlanFor(request: SyncRequest, base: Base, sides: MergeSides): Promise<MergePlan> {
  const { entries, diff, tracked } = sides;
  const rules = sessionFolderRules(base.record);
  const { caseInsensitive } = rules;
  const zipNow = {
    zipPath: base.record.source_path,
    limitsOn: base.limitsOn,
    forceable: base.forceable,
    rules,
    limits: request.limits,
    workspaces: workspacesOf(request.session.dir),
  };
  const { now, version } = readZipNow(zipNow);
  const plan = withBeneath(request.session.contents, (beneath) =>
    planMerge({ base: entries, diff, now, crcOf: (relative) => addedCrc(beneath, relative), caseInsensitive }),
  );
  const dataChecked = await checkTakenData(
    zipNow,
    plan.steps,
    version,
    tracked && ((relative) => tracked.paths.has(relative)),
  );
  return { ...plan, version, dataChecked };
}

/** A merge's counts: the workspace's side (a change the zip made too is counted once, in from_zip), and the zip's. */
export function mergedCounts(counts: SyncCounts, plan: MergePlan): SyncCounts {
  const { same } = plan;
  const renamed = (counts.files_renamed ?? 0) - same.renamed;
  // files_renamed only when there are renames (undefined is left out of the answer).
  return {
    ...counts,
    files_added: counts.files_added - same.added,
    files_modified: counts.files_modified - same.modified,
    files_deleted: counts.files_deleted - same.deleted,
    files_renamed: renamed > 0 ? renamed : undefined,
    from_zip: plan.fromZip,
  };
}
