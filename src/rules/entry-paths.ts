import path from 'node:path';
import { ZipfsError, type Refuse } from '../base/errors.ts';
import { quoted } from '../format/quote-name.ts';
import { NAME_MAX_BYTES, pathMaxBytes, type Platform } from './platform.ts';

/** An archive entry's place in the workspace. */
export interface EntryPath {
  /** Normalised relative path with `/` separators, no trailing slash. */
  path: string;
  isDirectory: boolean;
}

const MAX_SEGMENT_BYTES = NAME_MAX_BYTES;

/**
 * Maps an entry name to a workspace path, or refuses it. `\` is treated as a
 * separator on every OS (Windows tools write it, and a name that is safe on
 * Linux but escapes on Windows is still an attack), `.` and empty segments are
 * dropped, and `..` may not climb above the root. Absolute names, drive
 * letters and NUL bytes are refused outright: the whole open fails.
 */
export function entryPath(name: string): EntryPath {
  const refuse = (why: string) =>
    new ZipfsError(
      'PATH_TRAVERSAL',
      `Entry ${quoted(name)} ${why}; extracting it could write outside the workspace, so the archive was not opened.`,
    );
  if (name.includes('\0')) throw refuse('contains a NUL byte');
  const slashed = name.replaceAll('\\', '/');
  if (slashed.startsWith('/')) throw refuse('is an absolute path');
  if (/^[A-Za-z]:/.test(slashed)) throw refuse('starts with a drive letter');
  const segments: string[] = [];
  for (const segment of slashed.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') {
      if (segments.length === 0) throw refuse('climbs out of the archive root with ".."');
      segments.pop();
      continue;
    }
    // File systems take at most 255 bytes per name: refuse here, before anything is written.
    const bytes = Buffer.byteLength(segment);
    if (bytes > MAX_SEGMENT_BYTES) {
      throw new ZipfsError(
        'ZIP_INVALID',
        `Entry ${quoted(name)} has a name part of ${bytes} bytes (${quoted(`${segment.slice(0, 40)}...`)}); file systems allow at most ${MAX_SEGMENT_BYTES}, so the archive cannot be opened as files.`,
      );
    }
    segments.push(segment);
  }
  // "./" (bsdtar -cf out.zip . writes it first) is the archive's root folder: the workspace itself.
  if (segments.length === 0 && slashed.endsWith('/')) return { path: '', isDirectory: true };
  if (segments.length === 0) {
    throw new ZipfsError(
      'ZIP_INVALID',
      `Entry ${quoted(name)} has no usable name (empty or only separators and dots); the archive was not opened.`,
    );
  }
  return { path: segments.join('/'), isDirectory: slashed.endsWith('/') };
}

const SLASH = 0x2f;
const DOT = 0x2e;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

/**
 * Whether the name in `bytes[start, start + length)` is a path entryPath gives back as it is (a
 * folder's trailing "/" aside): ASCII, relative, no drive letter, no `\` or NUL, no empty, `.` or
 * `..` part, parts of at most 255 bytes. Read in place, so placing a million plain names costs no
 * string each; any other name goes through entryPath.
 */
export function isPlainPath(bytes: Uint8Array, start: number, length: number): boolean {
  if (length === 0) return false;
  const letter = bytes[start]! | 0x20; // lower case, for an ASCII letter
  if (length >= 2 && bytes[start + 1] === COLON && letter >= 0x61 && letter <= 0x7a) return false; // a drive letter
  let part = 0; // bytes in the part so far
  let dots = 0; // how many of them are dots
  for (let i = start; i < start + length; i++) {
    const byte = bytes[i]!;
    if (byte >= 0x80 || byte === BACKSLASH || byte === 0) return false;
    if (byte === SLASH) {
      if (part === 0 || (dots === part && part <= 2)) return false; // an empty part (a leading or doubled "/"), "." or ".."
      part = 0;
      dots = 0;
      continue;
    }
    if (++part > MAX_SEGMENT_BYTES) return false;
    if (byte === DOT) dots++;
  }
  return part === 0 || !(dots === part && part <= 2); // ending in "/" is a folder's name
}

/**
 * Why a workspace path cannot be written as an entry name that open would
 * take back as the same path, or undefined when it can. Sync asks this of
 * every path it adds: it never writes a name zipfs itself would refuse.
 */
export function unwritableName(relative: string, maxPathBytes: number): string | undefined {
  // "a\b" on Linux is one file; a zip reader (zipfs too) takes the backslash as a folder separator.
  if (relative.includes('\\'))
    return 'its name holds a backslash, which zip readers take as a folder separator (it would come back as another path, or climb out of the folder); rename it without one';
  try {
    entryPath(relative);
  } catch (error) {
    if (error instanceof ZipfsError)
      return `zipfs open would refuse it as an entry name (${error.code}: ${error.message.replace(/^Entry ".*?(?<!\\)" /, '').replace(/;.*$/, '')}); rename it`;
    throw error;
  }
  const bytes = Buffer.byteLength(relative);
  if (bytes > maxPathBytes)
    return `its path is ${bytes} bytes long, over the ${maxPathBytes} bytes a workspace path may take on this system (zipfs open would refuse it); move it to a shallower folder or shorten its names`;
  return undefined;
}

/** Room for a session's folder name: 64 characters and a numeric suffix, or a staging folder's `.open-<pid>-<uuid>`. */
const SESSION_FOLDER_BYTES = 70;

/**
 * How many bytes an entry's path may take in a workspace under `workspaces`
 * (`<workspaces>/<session>/contents/<entry path>`): past the system's path
 * limit, no program could open the file by its full path.
 */
export function maxEntryPathBytes(workspaces: string, platform?: Platform): number {
  return (
    pathMaxBytes(platform) -
    1 -
    Buffer.byteLength(path.join(workspaces, 'x'.repeat(SESSION_FOLDER_BYTES), 'contents')) -
    1
  );
}

/** Refuses an archive with an entry whose workspace path would be over maxEntryPathBytes. */
export function checkPathsFit(
  items: readonly { path: string; entry: { name: string } }[],
  workspaces: string,
  refuse: Refuse,
): void {
  const max = maxEntryPathBytes(workspaces);
  for (const item of items) {
    const bytes = item.path.length > max / 3 ? Buffer.byteLength(item.path) : 0;
    if (bytes > max) {
      refuse(
        new ZipfsError(
          'LIMIT_EXCEEDED',
          `Entry ${quoted(`${item.entry.name.slice(0, 80)}...`)} is ${bytes} bytes deep; in a workspace under ${workspaces} its path may take at most ${max} bytes, or no program could open it (this system's path limit is ${pathMaxBytes()}). Extract it with another tool into a short folder, or set ZIPFS_HOME to a shorter folder if that is enough; the archive was not opened.`,
        ),
      );
    }
  }
}
