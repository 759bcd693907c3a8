/**
 * A three-way merge of whole entries. Three sides are known at sync: the
 * base (the manifest: the zip as this session last saw it), the zip now
 * (another session, agent or program wrote it), and the workspace. Entries
 * are matched by the workspace path open gives them (zip-changes.ts), never
 * by raw name. An entry changed on one side only takes that side; one
 * changed on both sides is a conflict, named with what each side did, unless
 * both made the same change (the same bytes added, modified or renamed to,
 * or both deleted it). A file turned into a folder (or back) is its deletion
 * and an addition. Two sides that would leave a file where the other needs a
 * folder (or, in a folder that does not tell case apart, two spellings of one
 * path) conflict too (merge-clashes.ts). A text file both sides modified is
 * merged by lines where a line merge is offered (line-merge.ts): changes to
 * different lines merge, changes to the same lines conflict with line ranges;
 * other entries changed on both sides conflict whole, as git merges trees
 * before it merges files.
 *
 * The new archive follows the zip's current order: entries the zip kept as
 * they were are written as a plain sync writes them (copied raw, or from the
 * workspace where it changed them), entries the zip added or changed are
 * copied from it raw, and the workspace's additions follow, as a plain sync
 * places them.
 */
import { foldersOf, type ItemType } from '../rules/item-type.ts';
import type { EntryRecord } from '../session/manifest.ts';
import type { ZipEntry } from '../zip/index.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';
import { changeLines, changeLists, zipSideChanges, type PlacedEntry } from './zip-changes.ts';
import { layoutClashes, type Conflict, type MergedItem } from './merge-clashes.ts';
import type { LineOutcome } from './line-merge.ts';
import { conflictError } from './merge-conflicts.ts';

/**
 * One entry of the new archive, in its order. `quiet`: the zip's entry is the base's under
 * another spelling of its name (`d\b.txt` for `d/b.txt`), so the workspace has it already.
 */
export type Step =
  | { kind: 'base'; record: EntryRecord }
  | { kind: 'zip'; entry: ZipEntry; path: string; type: ItemType; quiet?: true };

export interface MergePlan {
  steps: Step[];
  /** The zip's side, as status's zip_changed shows it: `A path`, `M path`, `D path`. */
  fromZip: string[];
  /** Base entries the zip deleted and the workspace left alone: removed from the workspace after the sync. */
  zipDeleted: EntryRecord[];
  /** Workspace additions the zip made too, with the same bytes: written once, from the zip. */
  sameAdditions: Set<string>;
  /** Text files both sides modified, merged by lines: the merged text goes into the workspace, then the archive. */
  byLines: { path: string; text: string }[];
  /** The paths the workspace added, modified or deleted as the zip did (counted in fromZip). */
  samePaths: ReadonlySet<string>;
  /** How many of the workspace's changes the zip made too: counted once, in fromZip. */
  same: { added: number; modified: number; deleted: number; renamed: number };
  /** The zip's identity when the plan was read (zip-now.ts): a zip replaced since is a conflict. */
  version?: string;
  /**
   * Entries of that zip (by index) whose headers and data the plan checked as open does (zip-now.ts): sync's copy check
   * need not read them again, for a zip other than that version is refused before the rename.
   */
  dataChecked?: ReadonlySet<number>;
}

export interface MergeInput {
  /** The base's entries: the whole base (merge-sides.ts). */
  base: readonly EntryRecord[];
  diff: WorkspaceDiff;
  /** The zip now, placed and checked as open checks it (zip-now.ts). */
  now: readonly PlacedEntry[];
  /** A workspace file's CRC-32, to tell the same change made on both sides from two different ones. */
  crcOf: (relative: string) => number | undefined;
  /** The workspace's folder does not tell case apart: two spellings of one path are one file there. */
  caseInsensitive?: boolean;
  /** A text file both sides modified, merged by lines (line-merge.ts); without it, such files conflict whole. */
  mergeLines?: (record: EntryRecord, now: PlacedEntry) => LineOutcome;
  /** Words for a dry run's refusal: markers would be written, not were. */
  dryRun?: boolean;
}

/** The merge of the workspace's changes and the zip's, or CONFLICT_DETECTED naming every path changed on both sides. */
export function planMerge(input: MergeInput): MergePlan {
  const { base, diff, now, crcOf, caseInsensitive = false } = input;
  const additions = new Map(diff.additions.map((addition) => [addition.path, addition.observed]));
  const renamedFrom = new Map<string, number>(); // rename target -> the base entry's index
  for (const [index, to] of diff.renames) renamedFrom.set(to, index);
  const steps: Step[] = [];
  const zipDeleted: EntryRecord[] = [];
  const sameAdditions = new Set<string>();
  const sameRenames = new Set<number>(); // base entries both sides moved to one path with the same bytes
  const same = { added: 0, modified: 0, deleted: 0, renamed: 0 };
  const conflicts: Conflict[] = [];
  const conflict = (path: string, zip: string, workspace: string) => conflicts.push({ path, zip, workspace });
  const byLines: MergePlan['byLines'] = [];
  const samePaths = new Set<string>();
  // Both sides modified the file: merged by lines where it can be, else a conflict (with its lines, or whole and why).
  const bothModified = (record: EntryRecord, placed: PlacedEntry) => {
    const outcome = input.mergeLines?.(record, placed);
    if (outcome?.kind === 'merged') byLines.push({ path: record.path, text: outcome.text });
    if (outcome?.kind === 'merged' || outcome?.kind === 'resolved') steps.push({ kind: 'base', record });
    else
      conflicts.push({
        path: record.path,
        zip: 'modified',
        workspace: 'modified',
        ...(outcome?.kind === 'conflict' ? { lines: outcome.lines } : {}),
        ...(outcome?.kind === 'whole' ? { reason: outcome.reason } : {}),
      });
  };
  // The workspace's file at `relative` holds the entry's bytes (a folder holds none: the same kind is enough).
  const sameBytes = (relative: string, { entry, type }: PlacedEntry) => {
    const observed = diff.observed.get(relative);
    if (!observed || (observed.kind === 'dir') !== (type === 'dir')) return false;
    return type === 'dir' || (observed.size === entry.uncompressedSize && crcOf(relative) === entry.crc32);
  };
  const changes = zipSideChanges(base, now);
  // What the zip has at a path where it deleted a base entry (a file made a folder, or back): named in that conflict.
  let zipTypes: Map<string, ItemType> | undefined; // made for a conflict only
  let zipFolders: Set<string> | undefined;
  const zipHas = (relative: string): ItemType | undefined =>
    (zipTypes ??= new Map(now.map((placed) => [placed.path, placed.type]))).get(relative) ??
    ((zipFolders ??= foldersOf(now)).has(relative) ? 'dir' : undefined);
  const kindOf = (type: ItemType | 'special') => (type === 'dir' ? 'a folder' : 'a file');

  for (const change of changes) {
    if (change.kind === 'kept') {
      const { record, now: placed } = change;
      // Respelled only, and unchanged here: the zip's entry, copied raw with its name; the workspace has it already.
      if (placed.entry.name !== record.name && diff.states.get(record.index) === 'unchanged')
        steps.push({ kind: 'zip', ...placed, quiet: true });
      else steps.push({ kind: 'base', record });
    } else if (change.kind === 'modified') {
      const { record, now: placed } = change;
      const state = diff.states.get(record.index);
      if (state === 'unchanged' || (state === 'modified' && sameBytes(record.path, placed))) {
        if (state === 'modified') {
          same.modified++;
          samePaths.add(record.path);
        }
        steps.push({ kind: 'zip', ...placed });
      } else if (state === 'modified') bothModified(record, placed);
      else {
        conflict(
          record.path,
          'modified',
          state === 'deleted' ? 'deleted' : state === 'renamed' ? 'renamed' : 'modified',
        );
      }
    } else if (change.kind === 'added') {
      const { now: placed } = change;
      const addedHere = additions.has(placed.path);
      const movedHere = renamedFrom.get(placed.path);
      if (addedHere || movedHere !== undefined) {
        if (!sameBytes(placed.path, placed)) {
          const here = diff.observed.get(placed.path)?.kind;
          // A file against a folder at one path: said so.
          const kinds =
            here !== undefined && (here === 'dir') !== (placed.type === 'dir')
              ? [` ${kindOf(placed.type)}`, ` ${kindOf(here)}`]
              : ['', ''];
          conflict(placed.path, `added${kinds[0]}`, `${addedHere ? 'added' : 'renamed'}${kinds[1]}`);
          continue;
        }
        if (addedHere) {
          sameAdditions.add(placed.path);
          same.added++;
          samePaths.add(placed.path);
        } else sameRenames.add(movedHere!);
      }
      steps.push({ kind: 'zip', ...placed });
    } else {
      const { record } = change;
      const state = diff.states.get(record.index);
      const became = state === 'unchanged' || state === 'deleted' ? undefined : zipHas(record.path);
      const zipSide = became === undefined ? 'deleted' : `made it ${kindOf(became)}`;
      if (state === 'unchanged') zipDeleted.push(record);
      else if (state === 'deleted') {
        same.deleted++;
        samePaths.add(record.path);
      } else if (state === 'renamed' && sameRenames.has(record.index)) {
        same.renamed++;
        samePaths.add(record.path);
      } else conflict(record.path, zipSide, state === 'renamed' ? 'renamed' : 'modified');
    }
  }
  // A rename both sides made, where the zip kept a copy of the old entry: the workspace moved it away, so it goes.
  const plannedSteps =
    sameRenames.size === 0
      ? steps
      : steps.filter((step) => step.kind !== 'base' || !sameRenames.has(step.record.index));

  conflicts.push(...layoutClashes(mergedItems(plannedSteps, diff, sameAdditions), caseInsensitive));
  if (conflicts.length > 0) throw conflictError(conflicts, input.dryRun === true);
  return {
    steps: plannedSteps,
    fromZip: changeLines(changeLists(changes)),
    zipDeleted,
    sameAdditions,
    same,
    samePaths,
    byLines,
  };
}

/** What the new archive would hold, each with the side it comes from, for the clash check. */
function mergedItems(steps: readonly Step[], diff: WorkspaceDiff, sameAdditions: ReadonlySet<string>): MergedItem[] {
  const items: MergedItem[] = [];
  for (const step of steps) {
    if (step.kind === 'zip') {
      items.push({ path: step.path, type: step.type, origin: step.quiet ? 'both' : 'zip' });
      continue;
    }
    const state = diff.states.get(step.record.index);
    if (state === 'deleted') continue;
    items.push({
      path: diff.renames.get(step.record.index) ?? step.record.path,
      type: step.record.type,
      origin: state === 'unchanged' ? 'both' : 'workspace',
    });
  }
  for (const { path, observed } of diff.additions) {
    if (sameAdditions.has(path) || observed.kind === 'special') continue;
    items.push({ path, type: observed.kind, origin: 'workspace' });
  }
  return items;
}
