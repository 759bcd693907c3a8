/**
 * Whether one absolute path lies in a folder, by the path's text alone: the
 * comparison under the MCP server's allowed roots (allowed-roots.ts), which
 * first resolves links so that the text is the file's real place. The forms
 * one Windows folder takes are made one first: `\\?\C:\x` and `C:\x`,
 * `\\?\UNC\host\share\x` and `\\host\share\x`, `c:` and `C:`, a server and
 * share name in any case; a folder is not a prefix of its sibling (`C:\work`
 * does not hold `C:\work2`, the reference server's CVE-2025-53110). Other
 * names keep their case here: on a folder that folds case, allowed-roots.ts
 * settles another spelling by the folder's identity, never by lower-casing,
 * which would let `work` pass for `Work` on a folder that tells them apart.
 */
import path from 'node:path';

export type PathApi = typeof path.posix;

/** `\\?\UNC\host\share\x` or `\\.\UNC\...` -> `\\host\share\x`; `\\?\C:\x` or `\\.\C:\x` -> `C:\x`. */
function withoutDevicePrefix(text: string): string {
  const unc = /^[\\/]{2}[?.][\\/]UNC[\\/]/i.exec(text);
  if (unc) return `\\\\${text.slice(unc[0].length)}`;
  const local = /^[\\/]{2}[?.][\\/](?=[A-Za-z]:)/.exec(text);
  return local ? text.slice(local[0].length) : text;
}

/** One spelling of an absolute path for comparison with `api`'s rules; undefined for a relative path. */
export function comparableForm(text: string, api: PathApi): string | undefined {
  if (api.sep === '/') return api.isAbsolute(text) ? api.normalize(text).replace(/(?<=.)\/+$/, '') : undefined;
  const plain = withoutDevicePrefix(text);
  // A drive-relative path (`C:x`, `\x`) is relative to a working folder of that drive: nothing to compare.
  if (!/^(?:[A-Za-z]:[\\/]|[\\/]{2}[^\\/?.])/.test(plain)) return undefined;
  let normal = api.normalize(plain);
  if (/^[a-z]:/.test(normal)) normal = normal[0]!.toUpperCase() + normal.slice(1);
  // A UNC path's server and share name carry no case: `\\SERVER\Share` is `\\server\share`.
  const share = /^\\\\[^\\]+\\[^\\]+/.exec(normal);
  if (share) normal = share[0].toLowerCase() + normal.slice(share[0].length);
  // No trailing separator, except on a drive's root (`C:\`) or a share's (normalize leaves `\\host\share\`).
  return /^[A-Z]:\\$/.test(normal) ? normal : normal.replace(/\\+$/, '') || normal;
}

/** Whether `child` is `folder` itself or lies under it, both absolute, by `api`'s rules (posix, win32). */
export function isWithin(child: string, folder: string, api: PathApi = path): boolean {
  const [c, f] = [comparableForm(child, api), comparableForm(folder, api)];
  if (c === undefined || f === undefined) return false;
  if (c === f) return true;
  return c.startsWith(f.endsWith(api.sep) ? f : f + api.sep);
}
