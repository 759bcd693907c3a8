/**
 * status's fastest way to "nothing changed": the workspace walked once and compared with the stat
 * index (session/stat-index.ts) as it goes, in the order the index lists the entries (the scan's
 * order, which status writes it in). An untouched file costs its statx and the comparison of a
 * few numbers: no path string, no Observed object, no list of what was found. It answers only
 * "clean", and only where stat-verdict.ts's verdictInOrder would on the same folder (every entry
 * in its place and kind, untouched by content-match.ts's one rule, every folder on disk an entry
 * or holding something, nothing else there); at the first thing it cannot vouch for (a difference,
 * a new or missing item, the index in another order, a name that is not UTF-8, an item gone or
 * swapped while it looked) it stops, and status takes the long way (status-look.ts), which decides.
 */
import fs from 'node:fs';
import { STAT_FIELDS, libc } from '../base/libc.ts';
import type { Folder } from '../files/beneath.ts';
import { TYPE_DIR, type StatIndex } from '../session/stat-index.ts';
import { S_IFDIR, S_IFMT, S_IFREG } from '../zip/constants.ts';
import type { Observed } from './observed.ts';
import { isRoot, untouchedAt } from './stat-verdict.ts';
import { anyUndecoded } from './workspace-scan.ts';

/** Whether `indexPath` is `prefix` + `name`, compared in place (no string made per file). */
function isPathOf(indexPath: string, prefix: string, name: string): boolean {
  return indexPath.length === prefix.length + name.length && indexPath.endsWith(name) && indexPath.startsWith(prefix);
}

/**
 * Whether the folder under `root` is, by stat, exactly what `index` lists, in its order. False means
 * "not sure", never "changed": the caller then scans and compares the long way.
 */
export function untouchedInOrder(root: Folder, index: StatIndex, fenceMs: number | undefined): boolean {
  const native = libc();
  if (!native || root.descriptor === undefined) return false;
  const fields = new Float64Array(STAT_FIELDS.count);
  // One object, refilled for each file: what untouchedAt compares the index's columns with.
  const now: Observed = { kind: 'file', size: 0, mtime_ms: 0, ctime_ms: 0, ino: 0, nlink: 0 };
  const { paths, flags, count } = index;
  let j = 0;
  const skipRoots = () => {
    while (j < count && isRoot(index, j)) j++;
  };
  /** `implied`: the folder is no entry, so it must hold something (the diff then counts it implied). */
  const visit = (folder: Folder, prefix: string, implied: boolean): boolean => {
    const dirFd = folder.descriptor;
    if (dirFd === undefined) return false;
    let names: string[];
    try {
      names = fs.readdirSync(folder.path);
    } catch {
      return false;
    }
    if ((implied && names.length === 0) || anyUndecoded(names)) return false;
    for (let n = 0; n < names.length; n++) {
      const name = names[n]!;
      if (!native.statAt(dirFd, name, fields)) return false;
      skipRoots();
      const entry = j < count && isPathOf(paths[j]!, prefix, name);
      const type = fields[STAT_FIELDS.mode]! & S_IFMT;
      if (type === S_IFDIR) {
        if (entry) {
          if ((flags[j]! & 3) !== TYPE_DIR) return false;
          j++;
        }
        const inner = folder.openChild(name);
        if (!inner) return false;
        try {
          if (!visit(inner, `${prefix}${name}/`, !entry)) return false;
        } finally {
          inner.close();
        }
        continue;
      }
      if (!entry || type !== S_IFREG || (flags[j]! & 3) === TYPE_DIR) return false;
      now.size = fields[STAT_FIELDS.size]!;
      now.mtime_ms = fields[STAT_FIELDS.mtimeMs]!;
      now.ctime_ms = fields[STAT_FIELDS.ctimeMs]!;
      now.ino = fields[STAT_FIELDS.ino]!;
      if (!untouchedAt(index, j, now, fenceMs)) return false;
      j++;
    }
    return true;
  };
  if (!visit(root, '', false)) return false;
  skipRoots();
  return j === count;
}
