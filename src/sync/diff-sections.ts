/**
 * One changed path's part of a unified diff, as git writes it: the header, a rename's lines, the
 * hunks, or a line saying the files differ (binary, or only in what lines do not show). Diff
 * builds these against the base (archive-diff.ts) and against the zip now (zip-diff.ts).
 */
import fs from 'node:fs';
import { ZipfsError, isSystemError } from '../base/errors.ts';
import type { Beneath } from '../files/beneath.ts';
import { openRegularFile } from '../base/regular-file.ts';
import { unifiedDiff } from '../files/line-diff.ts';
import { quoteName } from '../format/quote-name.ts';
import { diffText, invisibleDifference } from '../files/invisible-difference.ts';
import { readLinkTarget } from './workspace-scan.ts';

export interface FileDiff {
  path: string;
  status: 'modified' | 'added' | 'deleted' | 'renamed';
  /** For `renamed`: the path it had. */
  from?: string;
  binary: boolean;
  additions: number;
  deletions: number;
  /** For a modified file whose lines read the same: what differs (invisible-difference.ts). */
  difference?: string;
}

/** One changed path and its part of the unified diff, as lines without their newline ([] for a folder). */
export interface FileSection {
  file: FileDiff;
  lines: string[];
}

/** Files larger than this are listed, not diffed line by line. */
export const TEXT_DIFF_MAX_BYTES = 16 << 20;

/** Text, or undefined for what a line diff cannot show (binary, not UTF-8 or UTF-16 with a BOM, too large). */
function asText(bytes: Uint8Array): string | undefined {
  if (bytes.length > TEXT_DIFF_MAX_BYTES) return undefined;
  return diffText(bytes);
}

/**
 * A changed file's bytes now, reached without links (beneath.ts) and opened
 * without blocking; empty when it vanished or changed kind since the scan.
 */
export function readCurrent(beneath: Beneath, shown: string, link: boolean): Uint8Array {
  beneath.keepFoldersOf(shown);
  try {
    const at = beneath.place(shown).path;
    if (link) return readLinkTarget(at);
    const { fd } = openRegularFile(at, shown);
    try {
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if (error instanceof ZipfsError || isSystemError(error, 'ENOENT', 'EINVAL', 'ELOOP', 'ENOTDIR'))
      return new Uint8Array(0);
    throw error;
  }
}

export interface SectionRequest {
  status: FileDiff['status'];
  /** The path now (the old one for a deletion); folders end in `/`. */
  shown: string;
  rename?: { from: string; modified?: true };
  /** Sync refuses it, or it is a special file: no content shown. */
  special: boolean;
  before: Uint8Array;
  after: Uint8Array;
  context: number;
}

/** The section of one changed path. */
export function fileSection(request: SectionRequest): FileSection {
  const { status, shown, rename, special, before, after } = request;
  const folder = shown.endsWith('/');
  const bare = folder ? shown.slice(0, -1) : shown;
  const was = rename ? (folder ? rename.from.slice(0, -1) : rename.from) : bare;
  // A rename whose content did not change shows no content, as git's does.
  const same = rename !== undefined && rename.modified !== true;
  const beforeText = asText(before);
  const afterText = asText(after);
  const binary = !folder && !same && (special || beforeText === undefined || afterText === undefined);
  const entry: FileDiff = rename
    ? { path: shown, status, from: rename.from, binary, additions: 0, deletions: 0 }
    : { path: shown, status, binary, additions: 0, deletions: 0 };
  let text = rename ? `rename from ${quoteName(was)}\nrename to ${quoteName(bare)}\n` : '';
  const invisible =
    !binary && !folder && !same && (status === 'modified' || status === 'renamed')
      ? invisibleDifference(before, after, beforeText!, afterText!)
      : undefined;
  if (same) {
    // The rename lines are all there is to show.
  } else if (binary)
    text +=
      `Binary files ${status === 'added' ? '/dev/null' : quoteName(`a/${bare}`)} and ` +
      `${status === 'deleted' ? '/dev/null' : quoteName(`b/${bare}`)} differ\n`;
  else if (invisible !== undefined) {
    entry.difference = invisible;
    text += `Files ${quoteName(`a/${was}`)} and ${quoteName(`b/${bare}`)} differ only in ${invisible}\n`;
  } else if (!folder) {
    const diff = unifiedDiff(bare, beforeText!, afterText!, request.context);
    entry.additions = diff.additions;
    entry.deletions = diff.deletions;
    text += diff.text;
  }
  // Names in the diff's own lines are quoted as git quotes them (files[].path keeps the exact name).
  const header = `diff --git ${quoteName(`a/${was}`)} ${quoteName(`b/${bare}`)}`;
  return { file: entry, lines: text === '' ? [] : [header, ...text.slice(0, -1).split('\n')] };
}
