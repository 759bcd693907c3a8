/**
 * The folders an MCP client may have zipfs open, inspect, create and sync zips in (`zipfs mcp --root`,
 * ZIPFS_ROOTS, the client's MCP roots). Backups, temporaries and locks of a sync sit beside the zip,
 * so a zip inside is all that is checked. The CLI has none: a shell user already has the shell.
 *
 * A path is judged where the file really is, not by how it is spelled:
 * - links are resolved first (the zip's, and every folder's on the way): a link inside a root to a
 *   folder outside is outside; `..` is resolved as open resolves it (path.resolve), then links;
 * - a zip that does not exist yet (create) is judged by its real parent folder, or the nearest folder
 *   of its path that exists (sync makes the rest); a dangling link by where it points;
 * - another spelling of a root on a folder that folds case (`WORK` for `Work` on macOS, Windows, a
 *   casefold folder) is the root by identity: a folder on the way with the root's device and inode.
 *   Names are never lower-cased to compare: on a folder that tells `work` from `Work` they are two.
 * - a hard link is judged by its own path, as the reference server does: a file has no "real"
 *   place among its names, and zipfs cannot find the others. Refusing every file with other links
 *   is not possible either, as zipfs's own session base and backup are hard links to the zip. It is
 *   safe: whoever made the link inside could already read the file, and sync never writes through
 *   it: it writes a new file and renames it over the link's name, so the other names keep the old
 *   bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError, quote } from '../base/errors.ts';
import { isWithin } from './root-paths.ts';

/** Links followed at most in a dangling chain, as the kernel's limit on Linux. */
const MAX_LINKS = 40;

/**
 * Where `given` really is: the real path of the file, or of the nearest folder of its path that
 * exists, followed by the rest of the path. Relative paths and `..` are resolved as open does.
 */
export function realPlace(given: string, depth = 0): string {
  const absolute = path.resolve(given);
  try {
    return fs.realpathSync.native(absolute);
  } catch (error) {
    if (!isSystemError(error, 'ENOENT', 'ENOTDIR')) throw error;
  }
  const link = fs.lstatSync(absolute, { throwIfNoEntry: false });
  if (link?.isSymbolicLink() && depth < MAX_LINKS) {
    // A dangling link: a create there would write where it points (sync follows the zip's link).
    const parent = realPlace(path.dirname(absolute), depth + 1);
    return realPlace(path.resolve(parent, fs.readlinkSync(absolute)), depth + 1);
  }
  const parent = path.dirname(absolute);
  if (parent === absolute) return absolute;
  return path.join(realPlace(parent, depth), path.basename(absolute));
}

function identityOf(folder: string): string | undefined {
  try {
    const stats = fs.statSync(folder, { bigint: true });
    return stats.ino === 0n ? undefined : `${stats.dev}:${stats.ino}`;
  } catch {
    return undefined;
  }
}

/** Each folder of `real`, from itself up to the file system's root. */
function foldersOf(real: string): string[] {
  const folders = [real];
  for (let at = real; path.dirname(at) !== at; at = path.dirname(at)) folders.push(path.dirname(at));
  return folders;
}

/** What a caller may reach: a zip's path is allowed or not. Absent from a context: anywhere. */
export interface ZipReach {
  allows(zipPath: string): boolean;
  /** PERMISSION_DENIED when the zip is outside; `what` names it in the message ("session q4's zip"). */
  assert(zipPath: string, what?: string): void;
}

/** Where the roots came from and how to add one, for the message that refuses a path. */
export interface RootsOrigin {
  /** "--root, ZIPFS_ROOTS and the client's roots"; the folder list follows it. */
  from: string;
  /** What to do when there are none at all (the working folder was not taken as one). */
  none?: string;
}

/** Whether `place` is a URL (a remote archive: http, https, s3) rather than a path. */
export function isUrlPlace(place: string): boolean {
  return /^(https?|s3):\/\//i.test(place);
}

/** `url` normalised (scheme and host lower-case, `..` resolved) with its query dropped, or undefined when invalid. */
function urlPrefix(url: string): string | undefined {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    return undefined;
  }
}

/**
 * Whether the remote archive `url` is under the URL root `root` (`https://host/dav/`, `s3://bucket/prefix/`): a
 * prefix that ends at a `/` of the URL's path, so `https://host/da` is not a root of `https://host/dav/a.zip`.
 */
function urlWithin(url: string, root: string): boolean {
  const at = urlPrefix(url);
  const under = urlPrefix(root);
  if (!at || !under) return false;
  const folder = under.endsWith('/') ? under : `${under}/`;
  return at === under || at.startsWith(folder);
}

export class AllowedRoots implements ZipReach {
  readonly roots: readonly string[];

  /**
   * `roots`: real paths of folders (realPlace), and URL prefixes for remote archives (`--root https://host/dav/`):
   * an MCP client reaches no server or bucket that the server's configuration does not name.
   */
  constructor(
    roots: readonly string[],
    readonly origin: RootsOrigin,
  ) {
    this.roots = [...new Set(roots)];
  }

  allows(zipPath: string): boolean {
    if (isUrlPlace(zipPath)) return this.roots.some((root) => isUrlPlace(root) && urlWithin(zipPath, root));
    let real: string;
    try {
      real = realPlace(zipPath);
    } catch {
      return false; // a path that cannot be resolved (ELOOP, EACCES on the way) is not shown to be inside
    }
    const folders = this.roots.filter((root) => !isUrlPlace(root));
    if (folders.some((root) => isWithin(real, root))) return true;
    const ids = new Set(folders.map(identityOf).filter((id) => id !== undefined));
    return ids.size > 0 && foldersOf(real).some((folder) => ids.has(identityOf(folder) ?? ''));
  }

  assert(zipPath: string, what = quote(zipPath)): void {
    if (this.allows(zipPath)) return;
    const shown = this.roots.map((root) => quote(root)).join(', ');
    const allowed =
      this.roots.length > 0
        ? `outside the folders this MCP server may use (${shown}: ${this.origin.from})`
        : `not in any folder this MCP server may use: it has none (${this.origin.none ?? this.origin.from})`;
    throw new ZipfsError(
      'PERMISSION_DENIED',
      isUrlPlace(zipPath)
        ? `${what} is a remote archive, and this MCP server may reach only the URLs under its URL roots (` +
            `${shown || 'none'}). To use it, add a URL root in the MCP server configuration: ` +
            '`zipfs mcp --root https://host/folder/` or `--root s3://bucket/prefix/` (or in ZIPFS_ROOTS).'
        : `${what} is ${allowed}. To use it, add its folder as a root: a workspace folder of the client (the MCP ` +
            'roots it sends), or `zipfs mcp --root DIR` (repeatable) or ZIPFS_ROOTS in the MCP server configuration.',
    );
  }
}
