/**
 * Where an open that extracts nothing places a zip's entries: their names,
 * clashes and methods checked as that open checks them, and no sizes (its
 * limits are on what is extracted). A merge reads the zip's side so where the
 * base's limits are on what is extracted (Base.limitsOn).
 */
import type { FolderRules } from '../rules/folder-rules.ts';
import type { ItemType } from '../rules/item-type.ts';
import { lazyEntriesOf } from '../session/lazy-entries.ts';
import type { PackedDirectory } from '../zip/index.ts';

/** Entry `index`'s path and type, as such an open places it. */
export type Places = (index: number) => { path: string; type: ItemType };

export function unextractedPlaces(directory: PackedDirectory, rules: FolderRules): Places {
  const { lazy } = lazyEntriesOf(directory, rules);
  return (index) => ({ path: lazy.paths[index]!, type: lazy.type(index) });
}
