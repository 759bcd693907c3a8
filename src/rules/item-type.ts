/** What an entry is in a workspace: a file, a folder or a symbolic link. */
export type ItemType = 'file' | 'dir' | 'symlink';

/** Every folder a set of items needs: the folders they are, and the parents of every path. */
export function foldersOf(items: readonly { path: string; type: ItemType }[]): Set<string> {
  const folders = new Set<string>();
  for (const item of items) {
    // '': a root entry ("./"), the workspace itself
    if (item.type === 'dir' && item.path !== '') folders.add(item.path);
    for (let slash = item.path.indexOf('/'); slash >= 0; slash = item.path.indexOf('/', slash + 1))
      folders.add(item.path.slice(0, slash));
  }
  return folders;
}
