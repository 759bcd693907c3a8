import { ZipfsError } from '../errors.ts';
import { quoted } from '../format/quote-name.ts';

/** An archive entry's place in the workspace. */
export interface EntryPath {
  /** Normalised relative path with `/` separators, no trailing slash. */
  path: string;
  isDirectory: boolean;
}

const MAX_SEGMENT_BYTES = 255;

/**
 * Maps an entry name to a workspace path, or refuses it. `\` is treated as a
 * separator on every OS (Windows tools write it, and a name that is safe on
 * Linux but escapes on Windows is still an attack), `.` and empty segments are
 * dropped, and `..` may not climb above the root. Absolute names, drive
 * letters and NUL bytes are refused outright: the whole open fails.
 */
export function entryPath(name: string): EntryPath {
  const refuse = (why: string) =>
    new ZipfsError('PATH_TRAVERSAL', `Entry ${quoted(name)} ${why}; extracting it could write outside the workspace, so the archive was not opened.`);
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
      throw new ZipfsError('ZIP_INVALID', `Entry ${quoted(name)} has a name part of ${bytes} bytes (${quoted(`${segment.slice(0, 40)}...`)}); file systems allow at most ${MAX_SEGMENT_BYTES}, so the archive cannot be opened as files.`);
    }
    segments.push(segment);
  }
  // "./" (bsdtar -cf out.zip . writes it first) is the archive's root folder: the workspace itself.
  if (segments.length === 0 && slashed.endsWith('/')) return { path: '', isDirectory: true };
  if (segments.length === 0) {
    throw new ZipfsError('ZIP_INVALID', `Entry ${quoted(name)} has no usable name (empty or only separators and dots); the archive was not opened.`);
  }
  return { path: segments.join('/'), isDirectory: slashed.endsWith('/') };
}
