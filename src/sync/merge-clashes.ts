/**
 * What a merge would leave that no folder can hold: a file where the other
 * side needs a folder (the zip added `x` and the workspace `x/y.txt`, or the
 * zip made folder `d/` a file while the workspace added `d/new.txt`), or, in
 * a workspace folder that does not tell case apart, two spellings of one
 * path. Each side alone is sound (the zip passed open's checks, the
 * workspace is a folder); only their union can clash, and such a clash is a
 * conflict between the sides, named as one: never an archive that open then
 * refuses, nor one file written over the other.
 */
import { quoted } from '../format/quote-name.ts';
import type { LineConflict } from '../files/merge-lines.ts';
import type { ItemType } from '../rules/item-type.ts';
import { foldCase } from '../rules/platform-names.ts';

/** An entry of the merged archive, and the side it comes from ('both': the base's, unchanged on both sides). */
export interface MergedItem {
  path: string;
  type: ItemType;
  origin: 'zip' | 'workspace' | 'both';
}

/** A path both sides changed incompatibly, with what each side has or did there. */
export interface Conflict {
  path: string;
  zip: string;
  workspace: string;
  /** A text file's changes to the same lines (line-merge.ts): the blocks of markers, by line of the merged file. */
  lines?: LineConflict[];
  /** Why an entry both sides modified was not merged by lines ("binary", "over 8 MiB", ...). */
  reason?: string;
}

interface Claim {
  path: string;
  isFolder: boolean;
  origin: MergedItem['origin'];
  /** The entry that makes this claim: itself, or one below the folder it implies. */
  by: string;
}

export function layoutClashes(items: readonly MergedItem[], caseInsensitive: boolean): Conflict[] {
  const claims = new Map<string, Claim>();
  const conflicts: Conflict[] = [];
  const reported = new Set<string>(); // a folder's clash is found once per entry below it: named once
  const claim = (next: Claim) => {
    const key = caseInsensitive ? foldCase(next.path) : next.path;
    const held = claims.get(key);
    if (!held) {
      claims.set(key, next);
      return;
    }
    // one folder, or one path the planner judged already
    if (held.path === next.path && held.isFolder === next.isFolder) return;
    if (held.origin === next.origin) return; // one side alone is sound: not a clash between the sides
    if (reported.has(key)) return;
    reported.add(key);
    const [zip, workspace] = held.origin === 'zip' || next.origin === 'workspace' ? [held, next] : [next, held];
    conflicts.push({ path: held.path, zip: describe(zip, held.path), workspace: describe(workspace, held.path) });
  };
  for (const item of items) {
    claim({ path: item.path, isFolder: item.type === 'dir', origin: item.origin, by: item.path });
    for (let slash = item.path.indexOf('/'); slash >= 0; slash = item.path.indexOf('/', slash + 1)) {
      claim({ path: item.path.slice(0, slash), isFolder: true, origin: item.origin, by: item.path });
    }
  }
  return conflicts;
}

/** "a file", "a folder (for "x/y.txt")", "a file "README.md"" (another spelling of the path named). */
function describe(claim: Claim, at: string): string {
  const spelled = claim.path === at ? '' : ` ${quoted(claim.path)}`;
  const holding = claim.isFolder && claim.by !== claim.path ? ` (for ${quoted(claim.by)})` : '';
  return `${claim.isFolder ? 'a folder' : 'a file'}${spelled}${holding}`;
}
