/**
 * Several paths in one call (delete, move, edit; issue 31): each pattern is a
 * path, or, when no item is at it and it holds * ? [ or {, a glob as extract
 * and open's `only` take them (match-entries.ts): without "/" it matches names
 * at any depth (`*.tmp`), with "/" the whole path (`ppt/slides/slide3*`,
 * `word/**`). The workspace is seen as ls sees it: on disk and, in a lazy
 * session, the entries still only in the zip, which are never extracted to be
 * matched. A pattern that names nothing is PATH_NOT_FOUND: a typo must not
 * pass silently.
 */
import { ZipfsError, quote } from '../base/errors.ts';
import type { Beneath } from '../files/beneath.ts';
import { normaliseToolPath } from '../files/safe-path.ts';
import type { ItemType } from '../rules/item-type.ts';
import { walk } from './listing.ts';
import type { Seen, Workspace } from './workspace.ts';

/** One item a call's paths name. */
export interface Target {
  relative: string;
  type: ItemType;
  /** Named by a glob, not by its own path. */
  globbed: boolean;
}

export interface ExpandOptions {
  /** Which types a glob keeps (a path names its item whatever its type). */
  globTypes: readonly ItemType[];
  /** Drop items below a folder that is itself a target (they go with it). */
  dropNested: boolean;
}

const GLOB_CHARS = /[*?[{]/;

function typeOf(seen: Seen): ItemType {
  if (seen.archived) return seen.archived.type;
  const stats = seen.disk!.stats;
  return stats.isDirectory() ? 'dir' : stats.isSymbolicLink() ? 'symlink' : 'file';
}

/** The folder a glob's walk starts from: its segments before the first with a glob character. */
function globStart(pattern: string): { start: string; depth: number } {
  const segments = pattern.split('/');
  if (segments.length === 1) return { start: '', depth: Infinity };
  let literal = 0;
  while (literal < segments.length - 1 && !GLOB_CHARS.test(segments[literal]!)) literal++;
  const rest = segments.slice(literal);
  return {
    start: segments.slice(0, literal).join('/'),
    depth: rest.some((segment) => segment.includes('**')) ? Infinity : rest.length,
  };
}

function globMatches(workspace: Workspace, beneath: Beneath, pattern: string, types: readonly ItemType[]): Target[] {
  const { start, depth } = globStart(pattern);
  let seen: Seen;
  try {
    seen = workspace.stat(beneath, start);
  } catch (error) {
    if (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND') return [];
    throw error;
  }
  if (typeOf(seen) !== 'dir') return [];
  const glob = new Bun.Glob(pattern);
  const whole = pattern.includes('/');
  const found: Target[] = [];
  walk(
    seen.disk ? beneath.folder(seen.relative) : undefined,
    {
      maxDepth: depth,
      archiveSymlinks: new Set(workspace.session.record.symlinks),
      base: seen.relative,
      archived: (relative) => workspace.archivedChildren(relative),
    },
    (item) => {
      const relative = seen.relative === '' ? item.path : `${seen.relative}/${item.path}`;
      const name = relative.slice(relative.lastIndexOf('/') + 1);
      if (types.includes(item.type) && glob.match(whole ? relative : name))
        found.push({ relative, type: item.type, globbed: true });
    },
  );
  return found;
}

/** The items `patterns` name, each once, in the order named (a glob's in path order). */
export function expandPaths(
  workspace: Workspace,
  beneath: Beneath,
  patterns: readonly string[],
  options: ExpandOptions,
): Target[] {
  const targets = new Map<string, Target>();
  for (const raw of patterns) {
    let named: Target[];
    try {
      const seen = workspace.stat(beneath, raw);
      named = [{ relative: seen.relative, type: typeOf(seen), globbed: false }];
    } catch (error) {
      if (!(error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND' && GLOB_CHARS.test(raw))) throw error;
      const pattern = raw
        .replaceAll('\\', '/')
        .replace(/^(\.?\/)+/, '')
        .replace(/\/+$/, '');
      normaliseToolPath(pattern); // a glob that climbs out is refused as a path is
      named = globMatches(workspace, beneath, pattern, options.globTypes);
      if (named.length === 0)
        throw new ZipfsError(
          'PATH_NOT_FOUND',
          `Nothing in the workspace matches ${quote(raw)}; give a path, or a glob (*.xml matches names at any ` +
            `depth, word/** a whole path). List what is there with ls or tree.`,
        );
    }
    for (const target of named) if (!targets.has(target.relative)) targets.set(target.relative, target);
  }
  const all = [...targets.values()];
  if (!options.dropNested) return all;
  const folders = new Set(all.filter((t) => t.type === 'dir').map((t) => t.relative));
  return all.filter((target) => {
    for (let cut = target.relative.lastIndexOf('/'); cut > 0; cut = target.relative.lastIndexOf('/', cut - 1))
      if (folders.has(target.relative.slice(0, cut))) return false;
    return true;
  });
}
