/**
 * A three-way merge of whole entries. Three sides are known at sync: the
 * base (the manifest: the zip as this session last saw it), the zip now
 * (another session, agent or program wrote it), and the workspace. An entry
 * changed on one side only takes that side; one changed on both sides is a
 * conflict, named with what each side did, unless both made it the same.
 * Entries are merged whole, never line by line (DESIGN.md, "Sync"), as git
 * merges trees before it merges files.
 *
 * The new archive follows the zip's current order: entries the zip kept as
 * they were are written as a plain sync writes them (copied raw, or from the
 * workspace where it changed them), entries the zip added or changed are
 * copied from it raw, and the workspace's additions follow, as a plain sync
 * places them.
 */
import { ZipfsError } from '../errors.ts';
import { quoted } from '../format/quote-name.ts';
import { entryPath } from '../open/entry-paths.ts';
import type { ItemType } from '../open/extraction-plan.ts';
import type { EntryRecord, Manifest } from '../session/manifest.ts';
import type { ZipEntry } from '../zip/index.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';
import { entryChanged } from './zip-changes.ts';

/** One entry of the new archive, in its order. */
export type Step = { kind: 'base'; record: EntryRecord } | { kind: 'zip'; entry: ZipEntry; path: string; type: ItemType };

export interface MergePlan {
  steps: Step[];
  /** What the zip's side brings, as status shows it: `A path`, `M path`, `D path`. */
  fromZip: string[];
  /** Base entries the zip deleted and the workspace left alone: removed from the workspace after the sync. */
  zipDeleted: EntryRecord[];
  /** Workspace additions the zip made too, with the same bytes: written once, from the zip. */
  sameAdditions: Set<string>;
}

type Side = 'added' | 'modified' | 'deleted' | 'renamed';


function typeOf(entry: ZipEntry, isDirectory: boolean): ItemType {
  return isDirectory || entry.isDirectory ? 'dir' : entry.isSymlink ? 'symlink' : 'file';
}

/**
 * The merge of the workspace's changes (`diff`) and the zip's (`current`, against `manifest`), or
 * CONFLICT_DETECTED naming every path changed on both sides. `crcOf` reads a workspace file's
 * CRC-32, to tell the same change made on both sides from two different ones.
 */
export function planMerge(manifest: Manifest, diff: WorkspaceDiff, current: readonly ZipEntry[], crcOf: (relative: string) => number | undefined): MergePlan {
  const base = new Map(manifest.entries.map((record) => [record.name, record]));
  const additions = new Map(diff.additions.map((addition) => [addition.path, addition.observed]));
  const renamedTo = new Set(diff.renames.values());
  const steps: Step[] = [];
  const fromZip: string[] = [];
  const sameAdditions = new Set<string>();
  const conflicts: { path: string; zip: Side; workspace: Side }[] = [];
  const sameBytes = (relative: string, entry: ZipEntry) => additions.get(relative)?.kind !== 'dir' && crcOf(relative) === entry.crc32;

  for (const entry of current) {
    const was = base.get(entry.name);
    if (!was) {
      const place = entryPath(entry.name); // a name open refuses was refused before the plan (the zip is checked as open checks it)
      const path = place.path;
      const type = typeOf(entry, place.isDirectory);
      if (additions.has(path) && !(type === 'dir' ? additions.get(path)!.kind === 'dir' : sameBytes(path, entry))) conflicts.push({ path, zip: 'added', workspace: 'added' });
      else if (renamedTo.has(path)) conflicts.push({ path, zip: 'added', workspace: 'renamed' });
      else {
        if (additions.has(path)) sameAdditions.add(path);
        steps.push({ kind: 'zip', entry, path, type });
        fromZip.push(`A ${path}${type === 'dir' ? '/' : ''}`);
      }
      continue;
    }
    if (!entryChanged(was, entry)) {
      steps.push({ kind: 'base', record: was });
      continue;
    }
    const state = diff.states.get(was.index);
    if (state === 'unchanged' || (state === 'modified' && sameBytes(was.path, entry))) {
      steps.push({ kind: 'zip', entry, path: was.path, type: was.type });
      fromZip.push(`M ${was.path}`);
    } else {
      conflicts.push({ path: was.path, zip: 'modified', workspace: state === 'deleted' ? 'deleted' : state === 'renamed' ? 'renamed' : 'modified' });
    }
  }

  const present = new Set(current.map((entry) => entry.name));
  const zipDeleted: EntryRecord[] = [];
  for (const record of manifest.entries) {
    if (present.has(record.name)) continue;
    const state = diff.states.get(record.index);
    if (state === 'unchanged') {
      zipDeleted.push(record);
      fromZip.push(`D ${record.path}${record.type === 'dir' ? '/' : ''}`);
    } else if (state !== 'deleted') {
      conflicts.push({ path: record.path, zip: 'deleted', workspace: state === 'renamed' ? 'renamed' : 'modified' });
    }
  }

  if (conflicts.length > 0) {
    const shown = conflicts.slice(0, 10).map((c) => `${quoted(c.path)} (zip: ${c.zip}, workspace: ${c.workspace})`);
    const more = conflicts.length > 10 ? `, and ${conflicts.length - 10} more` : '';
    throw new ZipfsError(
      'CONFLICT_DETECTED',
      `${conflicts.length === 1 ? 'An entry was' : `${conflicts.length} entries were`} changed both in the zip (by another writer) and in this workspace: ${shown.join('; ')}${more}. Nothing was written. Make each side agree (take the zip's version into the workspace, or undo it there), then merge again; or sync with force to keep the workspace's version of everything.`,
    );
  }
  // As status lists the zip's side: added, modified, deleted, each in path order.
  const rank = { A: 0, M: 1, D: 2 } as Record<string, number>;
  fromZip.sort((a, b) => rank[a[0]!]! - rank[b[0]!]! || (a < b ? -1 : a > b ? 1 : 0));
  return { steps, fromZip, zipDeleted, sameAdditions };
}
