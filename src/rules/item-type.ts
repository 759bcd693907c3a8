/** What an entry is in a workspace: a file, a folder or a symbolic link. */
export type ItemType = 'file' | 'dir' | 'symlink';

/** Every folder a set of items needs: the folders they are, and the parents of every path. */
export function foldersOf(items: readonly { path: string; type: ItemType }[]): Set<string> {
  const folders = new Set<string>();
  // The folder the item before was in, its parents added already: items in path order share it, and each of a
  // sync's 2,500 paths cost two substrings and two lookups otherwise.
  let parentBefore: string | undefined;
  for (const item of items) {
    const path = item.path;
    // '': a root entry ("./"), the workspace itself
    if (item.type === 'dir' && path !== '') folders.add(path);
    const last = path.lastIndexOf('/');
    if (last < 0 || (parentBefore?.length === last && path.startsWith(parentBefore))) continue;
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1))
      folders.add(path.slice(0, slash));
    parentBefore = path.slice(0, last);
  }
  return folders;
}
