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
import { checkTakenData, readZipNow, workspacesOf, type ZipNowRequest } from './zip-now.ts';
import { LineMerger } from './line-merge.ts';
import { writeMarkers, type MarkedFile } from './line-markers.ts';
import { changedSince, replacedDuringMerge } from './zip-identity.ts';

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
  const zipNow = zipNowRequest(request, base);
  const { caseInsensitive } = zipNow.rules;
  const { now, version } = readZipNow(zipNow);
  const marked: MarkedFile[] = [];
  const plan = withBeneath(request.session.contents, (beneath) => {
    const lines = new LineMerger({
      session: request.session,
      zipPath: zipNow.zipPath,
      limits: request.limits,
      beneath,
    });
    try {
      return planMerge({
        base: entries,
        diff,
        now,
        crcOf: (relative) => addedCrc(beneath, relative),
        caseInsensitive,
        mergeLines: (record, placed) => {
          const outcome = lines.merge(record, placed);
          if (outcome.kind === 'conflict') marked.push({ path: record.path, ...outcome });
          return outcome;
        },
        dryRun: request.dryRun,
      });
    } catch (error) {
      // Refused: changes to the same lines are marked in the workspace files (not in a dry run), then the refusal.
      if (!request.dryRun && marked.length > 0 && !changedSince(zipNow.zipPath, version))
        writeMarkers(request.session, marked);
      throw changedSince(zipNow.zipPath, version) ? replacedDuringMerge(zipNow.zipPath) : error;
    } finally {
      lines.close();
    }
  });
  const dataChecked = await checkTakenData(
    zipNow,
    plan.steps,
    version,
    tracked && ((relative) => tracked.paths.has(relative)),
  );
  return { ...plan, version, dataChecked };
}

/** How a merge reads the zip now: as open would, under the session's limits and folder rules. */
export function zipNowRequest(request: SyncRequest, base: Base): ZipNowRequest {
  return {
    zipPath: base.record.source_path,
    limitsOn: base.limitsOn,
    forceable: base.forceable,
    rules: sessionFolderRules(base.record),
    limits: request.limits,
    workspaces: workspacesOf(request.session.dir),
    nameEncoding: base.record.name_encoding,
  };
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
    ...(plan.byLines.length > 0 ? { merged_by_lines: plan.byLines.map((merged) => merged.path) } : {}),
  };
}

/** The most lines from_workspace lists: the counts (and status) say the rest. */
const WORKSPACE_LINES = 500;

/**
 * The workspace's side of a merge, as from_zip shows the zip's: `A path`, `M path`, `D path`, `R from -> to`, in path
 * order, without the changes the zip made too (those are in from_zip).
 */
export function fromWorkspace(diff: WorkspaceDiff, plan?: MergePlan): string[] {
  const lines = [
    ...diff.added.map((at) => ({ at, line: `A ${at}` })),
    ...diff.modified.map((at) => ({ at, line: `M ${at}` })),
    ...diff.deleted.map((at) => ({ at, line: `D ${at}` })),
    ...diff.renamed.map(({ from, to }) => ({ at: from, line: `R ${from} -> ${to}` })),
  ]
    .filter(({ at }) => !plan?.samePaths.has(at))
    .sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : 0))
    .map(({ line }) => line);
  if (lines.length <= WORKSPACE_LINES) return lines;
  return [...lines.slice(0, WORKSPACE_LINES), `... and ${lines.length - WORKSPACE_LINES} more (status lists them all)`];
}
