/**
 * What a workspace's file system can hold, decided before a byte is
 * extracted (DESIGN.md, "Platforms"):
 * - on a folder that folds case (macOS APFS and Windows NTFS by default),
 *   two files, or a file and a folder, whose paths differ only in case would
 *   be one path: one would silently replace the other. Folders that differ
 *   only in case are one folder there, and their entries keep their exact
 *   names (status and sync match them by folded path).
 * - Windows cannot hold some names at all (`< > : " | ? *`, control
 *   characters, a trailing dot or space, device names such as CON or
 *   nul.txt); `a:b` would even become an alternate data stream of `a`. They
 *   are refused by name, never extracted under another name.
 */
import { ZipfsError, type Refuse } from '../base/errors.ts';
import { quoted } from '../format/quote-name.ts';
import type { ItemType } from './item-type.ts';

interface NamedItem {
  path: string;
  type: ItemType;
  entry: { name: string };
}

/** The key names compare by on a folder that folds case. */
export function foldCase(name: string): string {
  return name.toLowerCase();
}

/** Refuses two items that a case-folding folder would make one path: two files, or a file and a folder. */
export function assertNoCaseCollisions(
  items: readonly NamedItem[],
  folders: ReadonlySet<string>,
  refuse: Refuse,
): void {
  const files = new Map<string, NamedItem>();
  for (const item of items) {
    if (item.type === 'dir' || item.path === '') continue;
    const key = foldCase(item.path);
    const other = files.get(key);
    if (other) refuse(collision(other, item, 'two files'));
    else files.set(key, item);
  }
  for (const folder of folders) {
    const file = files.get(foldCase(folder));
    if (!file || file.path === folder) continue; // a file at a folder's exact path is the plan's own clash
    const inside = items.find(
      (item) => foldCase(item.path).startsWith(`${foldCase(folder)}/`) || item.path === folder,
    )!;
    refuse(collision(file, inside, 'a file and a folder'));
  }
}

function collision(a: NamedItem, b: NamedItem, what: string): ZipfsError {
  return new ZipfsError(
    'ZIP_INVALID',
    `Entries ${quoted(a.entry.name)} and ${quoted(b.entry.name)} are ${what} whose paths differ only in case, and ` +
      `the workspace's folder does not tell case apart (as macOS and Windows folders do not): one would silently ` +
      `replace the other, so the archive was not opened. Rename one in the archive (zip -d and add it back under ` +
      `another name), or set ZIPFS_HOME to a case-sensitive folder.`,
  );
}

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
const WINDOWS_FORBIDDEN = /[<>:"|?*\u0000-\u001f]/;

/** Why Windows cannot hold this one name (a path segment), or undefined. */
export function windowsNameProblem(segment: string): string | undefined {
  const bad = WINDOWS_FORBIDDEN.exec(segment);
  if (bad)
    return bad[0] === ':'
      ? 'holds ":", which Windows would take as an alternate data stream'
      : `holds ${bad[0] < ' ' ? 'a control character' : `"${bad[0]}"`}, which Windows does not allow in names`;
  if (/[. ]$/.test(segment)) return 'ends with a dot or a space, which Windows drops from names';
  if (WINDOWS_RESERVED.test(segment)) return `is a device name on Windows (${segment.split('.')[0]!.toUpperCase()})`;
  return undefined;
}

/** Refuses, by name, an entry whose path Windows cannot hold. */
export function assertWindowsNames(items: readonly NamedItem[], refuse: Refuse): void {
  for (const item of items) {
    for (const segment of item.path.split('/')) {
      if (segment === '') continue;
      const problem = windowsNameProblem(segment);
      if (problem) {
        refuse(
          new ZipfsError(
            'ZIP_INVALID',
            `Entry ${quoted(item.entry.name)} ${problem}; it cannot be extracted on this system under its own name, ` +
              `so the archive was not opened. Open it on Linux or macOS, or rename the entry in the archive.`,
          ),
        );
        break;
      }
    }
  }
}
