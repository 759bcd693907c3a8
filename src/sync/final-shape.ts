/**
 * The shape of the archive a sync is about to write: no entry may be a file
 * (or link) where another entry needs a folder, and no two may claim one path.
 * Open refuses such an archive ("Entry x is a file, but x/y.txt needs it to
 * be a folder"), so sync refuses to write it, before the temporary is begun.
 *
 * One check on the final set of paths, for every sync (plain or merge, whatever the session):
 * what the base keeps as it was, which open checked already, and what is new
 * (the workspace's additions and renames, the other writer's entries in a
 * merge). A clash needs a new path, so a sync that writes none is not
 * checked further; otherwise every kept path is tested against the new ones
 * with set lookups, in one pass and without sorting: a session of a million
 * entries, never extracted, with one file added pays one walk over their paths.
 *
 * A clash arises where a disk cannot hold one: a workspace file stands at `x`
 * while `x/y.txt`, never extracted, is only in the zip (an untouched entry); in
 * a merge, the other writer added `x` beside the workspace's `x/y.txt`.
 */
import { ZipfsError } from '../base/errors.ts';
import { quoted } from '../format/quote-name.ts';
import { invocation } from '../base/message-marks.ts';
import type { ItemType } from '../rules/item-type.ts';
import type { EntryRecord } from '../session/manifest.ts';
import type { Base } from '../workspace/base.ts';
import type { MergePlan } from './merge-plan.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';

/** Where an entry of the new archive comes from, for the refusal's wording. */
type Side = 'workspace' | 'zip-only' | 'other-writer';

interface Placed {
  path: string;
  type: ItemType;
  side: Side;
}

export interface FinalShape {
  base: Base;
  /** The base's entries as the sync reads them: those the scan compared, or a merge's whole base (merge-sides.ts). */
  entries: EntryRecord[];
  diff: WorkspaceDiff;
  plan?: MergePlan;
  /** A merge where not every entry is on disk: the base entries that are; the others are only in the zip. */
  tracked?: { indexes: Set<number> };
}

/**
 * Refuses, before anything is written, a sync whose archive would put a file where a folder is needed, or two entries
 * at one path.
 */
export function assertFinalShape(shape: FinalShape): void {
  const fresh = freshPaths(shape);
  if (fresh.length === 0) return; // a part of a base open accepted: nothing can clash
  try {
    const clash = findClash(fresh, (visit) => forEachKept(shape, visit, fresh));
    if (clash) throw refusal(clash);
  } finally {
    // An index loaded for this check only: the writing must not hold it too.
    shape.base.release();
  }
}

/** The base's entries the new archive writes (deleted ones aside): a merge's, or the manifest's. */
function baseWritten({ entries, diff, plan }: FinalShape): EntryRecord[] {
  const records = plan ? plan.steps.flatMap((step) => (step.kind === 'base' ? [step.record] : [])) : entries;
  return records.filter((record) => diff.states.get(record.index) !== 'deleted');
}

function sideOf({ tracked }: FinalShape, index: number): Side {
  return tracked && !tracked.indexes.has(index) ? 'zip-only' : 'workspace';
}

/**
 * The paths the base did not have: additions and renames from the workspace, and the other writer's entries in a merge.
 */
function freshPaths(shape: FinalShape): Placed[] {
  const { diff, plan } = shape;
  const fresh: Placed[] = [];
  for (const { path, observed } of diff.additions) {
    if (plan?.sameAdditions.has(path)) continue; // written once, from the zip (below)
    fresh.push({
      path,
      type: observed.kind === 'dir' ? 'dir' : observed.kind === 'symlink' ? 'symlink' : 'file',
      side: 'workspace',
    });
  }
  if (diff.renames.size > 0) {
    for (const record of baseWritten(shape)) {
      const to = diff.renames.get(record.index);
      if (to !== undefined) fresh.push({ path: to, type: record.type, side: 'workspace' });
    }
  }
  for (const step of plan?.steps ?? [])
    if (step.kind === 'zip') fresh.push({ path: step.path, type: step.type, side: 'other-writer' });
  return fresh;
}

type Visit = (path: string, type: ItemType, side: Side) => void;

/** Every entry of the base the new archive keeps at its own path. */
function forEachKept(shape: FinalShape, visit: Visit, fresh: readonly Placed[]): void {
  for (const record of baseWritten(shape))
    if (!shape.diff.renames.has(record.index)) visit(record.path, record.type, sideOf(shape, record.index));
  if (shape.plan) return; // a merge's plan lists the whole base
  // A plain sync copies every untouched entry as it is: only those near a new path can clash with one.
  const near = fresh.map((item) => item.path);
  shape.base.forEachUntouched(shape.entries, (path, type) => visit(path, type, 'zip-only'), near);
}

interface Clash {
  /** The entry that is not a folder. */
  file: Placed;
  /** The entry below it, or at its path. */
  other: Placed;
  samePath: boolean;
}

/**
 * The first clash between a new path and the final set (the kept paths and the new ones). A path
 * clashes when it is a file that a new path needs as a folder, when a new file stands on its way,
 * or when a new path is the same.
 */
function findClash(fresh: Placed[], forEach: (visit: Visit) => void): Clash | undefined {
  const freshAt = new Map<string, Placed>();
  const needsFolder = new Map<string, Placed>();
  const fileLengths = new Set<number>();
  let found: Clash | undefined;
  for (const item of fresh) {
    const twin = freshAt.get(item.path);
    if (twin)
      found ??= { file: twin.type === 'dir' ? item : twin, other: twin.type === 'dir' ? twin : item, samePath: true };
    freshAt.set(item.path, item);
    if (item.type !== 'dir') fileLengths.add(item.path.length);
    for (let cut = item.path.lastIndexOf('/'); cut > 0; cut = item.path.lastIndexOf('/', cut - 1)) {
      const folder = item.path.slice(0, cut);
      if (needsFolder.has(folder)) break; // and so its own parents
      needsFolder.set(folder, item);
    }
  }
  const test = (path: string, type: ItemType, side: Side, isFresh: boolean) => {
    if (found) return;
    if (type !== 'dir' && needsFolder.has(path)) {
      found = { file: { path, type, side }, other: needsFolder.get(path)!, samePath: false };
      return;
    }
    if (!isFresh) {
      const twin = freshAt.get(path);
      if (twin) {
        found = {
          file: type === 'dir' ? twin : { path, type, side },
          other: type === 'dir' ? { path, type, side } : twin,
          samePath: true,
        };
        return;
      }
    }
    if (fileLengths.size === 0) return;
    // A new file on the way to this path: only the slashes at a new file's length are looked up.
    for (let cut = path.indexOf('/'); cut > 0; cut = path.indexOf('/', cut + 1)) {
      if (!fileLengths.has(cut)) continue;
      const holder = freshAt.get(path.slice(0, cut));
      if (holder && holder.type !== 'dir') {
        found = { file: holder, other: { path, type, side }, samePath: false };
        return;
      }
    }
  };
  for (const item of fresh) test(item.path, item.type, item.side, true);
  if (!found) forEach((path, type, side) => test(path, type, side, false));
  return found;
}

const WHERE: Record<Side, string> = {
  workspace: 'in the workspace',
  'zip-only': 'only in the zip (never extracted)',
  'other-writer': 'added to the zip by its other writer',
};

/**
 * The refusal, with the way out: a merge's clash is a conflict between the sides; anything else, the workspace's to
 * fix.
 */
function refusal({ file, other, samePath }: Clash): ZipfsError {
  const kind = file.type === 'symlink' ? 'link' : 'file';
  const what = samePath
    ? `${quoted(file.path)} would be written twice: as a ${kind} ${WHERE[file.side]}, and as ` +
      `${other.type === 'dir' ? 'a folder' : 'another entry'} ${WHERE[other.side]}`
    : `${quoted(file.path)} is a ${kind} ${WHERE[file.side]}, but ${quoted(other.path)}, ${WHERE[other.side]}, ` +
      `needs it to be a folder`;
  const stop = 'The new archive would hold both, which open refuses; nothing was written.';
  if (file.side === 'other-writer' || other.side === 'other-writer') {
    const mine = file.side === 'other-writer' ? other : file;
    return new ZipfsError(
      'CONFLICT_DETECTED',
      `The zip and this workspace disagree about a path: ${what}. ${stop} Move or delete ${quoted(mine.path)} in ` +
        `the workspace so that the sides agree, then merge again.`,
    );
  }
  const zipOnly = file.side === 'zip-only' ? file : other.side === 'zip-only' ? other : undefined;
  const fix =
    zipOnly === other
      ? `Keep the file under another name, or delete the zip's entries under ${quoted(file.path)} first: move the ` +
        `file aside, run ${invocation('delete', { path: file.path, recursive: true })}, and move it back.`
      : `Move ${quoted(zipOnly === file ? other.path : file.path)} in the workspace elsewhere.`;
  return new ZipfsError('INVALID_INPUT', `Sync cannot write this workspace: ${what}. ${stop} ${fix} Then sync again.`);
}
