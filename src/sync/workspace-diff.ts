/**
 * What changed in a workspace against its manifest. Any program may have
 * edited it, so the truth is the disk: each file's size, mtime, ctime and
 * inode are compared with the stat recorded when zipfs last wrote or read it.
 * ctime cannot be set back by utimes, so an edit that keeps size and mtime is
 * still seen; when the stat differs, the content's CRC-32 decides (a `touch`
 * or a copy of the same bytes is not a change).
 *
 * The scan never opens what is not a regular file, and it notes what a zip
 * cannot take faithfully (special files, names that are not UTF-8, hard links
 * to files outside the workspace): status lists them, sync refuses them.
 */
import { phase } from '../base/phase-trace.ts';
import path from 'node:path';
import { withBeneath, type Beneath } from '../files/beneath.ts';
import { foldersOf } from '../rules/item-type.ts';
import { maxEntryPathBytes, unwritableName } from '../rules/entry-paths.ts';
import { findRenames } from './renames.ts';
import { sessionFolderRules } from '../rules/folder-rules.ts';
import type { EntryRecord } from '../session/manifest.ts';
import type { Base } from '../workspace/base.ts';
import type { Observed } from './observed.ts';
import { addedCrc, contentMatches, untouched } from './content-match.ts';
import { matchFoldedNames, scan, type Scanned } from './workspace-scan.ts';

/** `renamed`: the entry is on disk under another path (renames.ts), maybe with new content. */
export type EntryState = 'unchanged' | 'modified' | 'deleted' | 'renamed';

/** A path sync cannot write into a zip as it is, and why. */
export interface Unsupported {
  path: string;
  reason: string;
}

export interface WorkspaceDiff {
  /** The base's entries the scan compared, in index order (Base.compared): the others are untouched. */
  entries: EntryRecord[];
  /** Sorted workspace paths; folders end with `/`. */
  modified: string[];
  added: string[];
  deleted: string[];
  unchangedCount: number;
  /** Entries that moved, sorted by their new path; not in `deleted` or `added`. Folders end with `/`. */
  renamed: { from: string; to: string; modified?: true }[];
  /** Where each renamed entry is now, by its index. */
  renames: Map<number, string>;
  /** Changed or added paths that sync refuses, sorted by path. */
  unsupported: Unsupported[];
  /** The state of each manifest entry, by its index. */
  states: Map<number, EntryState>;
  /** New things on disk, in path order. */
  additions: { path: string; observed: Observed }[];
  /** Everything on disk, by path. */
  observed: Map<string, Observed>;
}

/**
 * Changed or added paths whose content would come from outside the workspace
 * or cannot be stored: special files, and regular files with more links than
 * the workspace holds (a hard link to a file elsewhere: packing it would copy
 * outside content into the zip, and a later write through the other link
 * would change the workspace behind zipfs's back).
 */
function findUnsupported(
  changed: string[],
  additions: WorkspaceDiff['additions'],
  items: Map<string, Observed>,
  badNames: string[],
  maxPathBytes: number,
): Unsupported[] {
  const found: Unsupported[] = badNames.map((name) => ({
    path: name,
    reason: 'its name is not valid UTF-8; rename it',
  }));
  // An added path becomes an entry name: never one that open would refuse or read back as another path.
  for (const { path: relative } of additions) {
    const reason = unwritableName(relative, maxPathBytes);
    if (reason) found.push({ path: relative, reason });
  }
  let linksInside: Map<number, number> | undefined;
  for (const relative of changed) {
    const observed = items.get(relative);
    if (!observed) continue;
    if (observed.kind === 'special') {
      found.push({ path: relative, reason: `it is ${observed.what}, which a zip cannot hold; delete it` });
    } else if (observed.kind === 'file' && observed.nlink > 1) {
      if (!linksInside) {
        linksInside = new Map();
        for (const item of items.values())
          if (item.kind === 'file' && item.nlink > 1) linksInside.set(item.ino, (linksInside.get(item.ino) ?? 0) + 1);
      }
      const inside = linksInside.get(observed.ino) ?? 0;
      if (inside < observed.nlink) {
        found.push({
          path: relative,
          reason:
            `it is a hard link to a file outside the workspace (${observed.nlink} links, ${inside} inside); ` +
            `make it a file of its own (cp it to a new name and mv that back)`,
        });
      }
    }
  }
  return found.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** `root`: a session's contents folder, `<workspaces>/<name>/contents`. */
export function diffWorkspace(root: string, base: Base): WorkspaceDiff {
  return withBeneath(root, (beneath) => diffScanned(beneath, base, scanWorkspace(beneath)));
}

/** What is in the workspace `beneath` holds (workspace-scan.ts), timed as the diff's scan. */
export function scanWorkspace(beneath: Beneath): Scanned {
  phase('diff: before scan');
  const scanned = scan(beneath.folder(''));
  phase('diff: scan');
  return scanned;
}

/** The diff of what `scanned` found (in `beneath`'s folder, which it changes) against `base`. */
export function diffScanned(beneath: Beneath, base: Base, scanned: Scanned): WorkspaceDiff {
  const session = base.record;
  const fenceMs = session.ctime_fence_ms;
  const { items, emptyDirs, badNames, folders } = scanned;
  // The base's entries that may differ from the folder; the others are untouched (workspace/base.ts).
  const entries = base.compared(items);
  const folded = sessionFolderRules(session).caseInsensitive;
  if (folded) matchFoldedNames(items, emptyDirs, entries);
  const states = new Map<number, EntryState>();
  const modified: string[] = [];
  const deleted: string[] = [];
  // Paths on disk that an entry accounts for. A path whose kind changed between a folder and a
  // non-folder (`rm -r d; echo x > d`, `rm f; mkdir f`) is two things: the entry, deleted, and what
  // is there now, added; keyed by path alone, the new file would pass for the old folder and be lost.
  const known = new Set<string>();
  let unchangedCount = 0;
  // Noted in this one pass over the entries, not in passes of their own (a status of 12,500 entries paid ~3 ms).
  const gone: EntryRecord[] = [];
  let folderEntries = false;
  let knownFolders = 0;

  for (const entry of entries) {
    if (entry.type === 'dir' && entry.path !== '') folderEntries = true;
    const now = items.get(entry.path);
    if (now && (entry.type === 'dir') === (now.kind === 'dir')) {
      known.add(entry.path);
      if (entry.type === 'dir') knownFolders++;
    }
    let state: EntryState;
    if (entry.type === 'dir')
      // '': a root entry ("./"), the workspace itself
      state = entry.path === '' || now?.kind === 'dir' ? 'unchanged' : 'deleted';
    else if (!now || now.kind === 'dir') state = 'deleted';
    else if (now.kind === 'special' || (entry.type === 'file' && now.kind === 'symlink')) state = 'modified';
    else if (now.kind === 'file' && untouched(entry, now, fenceMs)) state = 'unchanged';
    else {
      const matches = contentMatches(beneath, entry, now);
      if (matches === 'gone') {
        items.delete(entry.path);
        known.delete(entry.path);
      }
      state = matches === 'gone' ? 'deleted' : matches ? 'unchanged' : 'modified';
    }
    states.set(entry.index, state);
    const shown = entry.type === 'dir' ? `${entry.path}/` : entry.path;
    if (state === 'unchanged') unchangedCount++;
    else if (state === 'modified') modified.push(shown);
    else {
      deleted.push(shown);
      gone.push(entry);
    }
  }

  phase('diff: compare entries');
  // Folders follow the archive's convention. Where it stores folder entries (a jar, most zip tools), a new
  // folder gets one, empty or not; where it stores none, folders are implied by their files, and only an
  // empty one needs an entry to exist at all. Folders the archive implied are never new.
  let stores: boolean | undefined;
  const storesFolders = () => (stores ??= folderEntries || base.untouchedStoreFolders());
  let implied: Set<string> | undefined;
  const ofCompared = (dir: string) => (implied ??= foldersOf(entries)).has(dir);
  let additions: WorkspaceDiff['additions'] = [];
  const consider = (observed: Observed, relative: string) => {
    if (known.has(relative)) return;
    // The compared entries' folders first: the untouched entries' answers may load every entry's path.
    if (observed.kind === 'dir' && (ofCompared(relative) || (!storesFolders() && !emptyDirs.has(relative)))) return;
    if (observed.kind === 'dir' && base.untouchedHaveFolder(relative)) return;
    additions.push({ path: relative, observed });
  };
  // Every known path is on disk, files and links with files and links: when as many are known as there are, only a
  // folder can be new, and the folders are all that is looked at (a status of 12,500 files: ~3 ms less).
  if (!folded && known.size - knownFolders === items.size - folders.length)
    for (const folder of folders) consider(items.get(folder)!, folder);
  else items.forEach(consider);
  additions.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const found =
    gone.length > 0 && additions.length > 0
      ? findRenames(gone, additions, (relative) => addedCrc(beneath, relative))
      : [];
  const renames = new Map(found.map((rename) => [rename.index, rename.to]));
  // Shown as status shows paths: a folder with its trailing `/`.
  const folderMark = new Set(gone.filter((entry) => entry.type === 'dir').map((entry) => entry.index));
  const renamed = found
    .map(({ index, from, to, modified: changed }) => {
      const mark = folderMark.has(index) ? '/' : '';
      return changed
        ? { from: from + mark, to: to + mark, modified: true as const }
        : { from: from + mark, to: to + mark };
    })
    .sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : 0));
  if (found.length > 0) {
    for (const rename of found) states.set(rename.index, 'renamed');
    const moved = new Set(renamed.map((rename) => rename.from));
    const arrived = new Set(found.map((rename) => rename.to));
    deleted.splice(0, deleted.length, ...deleted.filter((shown) => !moved.has(shown)));
    additions = additions.filter((addition) => !arrived.has(addition.path));
  }
  const added = [...additions.map((a) => (a.observed.kind === 'dir' ? `${a.path}/` : a.path)), ...badNames];
  // A rename writes a new name, and its content comes from the workspace: checked as an addition is.
  const written = [...additions, ...found.map((rename) => ({ path: rename.to, observed: items.get(rename.to)! }))];
  const unsupported = findUnsupported(
    [...modified, ...written.map((a) => a.path)],
    written,
    items,
    badNames,
    maxEntryPathBytes(path.dirname(path.dirname(beneath.root))),
  );
  const sort = (list: string[]) => list.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  // The untouched entries are unchanged: their bytes are the zip's.
  unchangedCount += base.count - entries.length;
  return {
    entries,
    modified: sort(modified),
    added: sort(added),
    deleted: sort(deleted),
    renamed,
    renames,
    unchangedCount,
    unsupported,
    states,
    additions,
    observed: items,
  };
}
