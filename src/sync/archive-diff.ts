/**
 * What status lists, as a unified diff against the archive's original content,
 * read from the source zip itself. That base is only right while the zip is
 * the one the session opened (or last synced): when it changed, the diff says
 * so instead of comparing with the wrong base. Binary files (grep's rule, or
 * not UTF-8) and special files are listed without a text diff.
 */
import fs from 'node:fs';
import { ZipfsError, isSystemError } from '../base/errors.ts';
import { Beneath } from '../files/beneath.ts';
import { openRegularFile } from '../base/regular-file.ts';
import { unifiedDiff } from '../files/line-diff.ts';
import { quoteName } from '../format/quote-name.ts';
import { normaliseToolPath } from '../files/safe-path.ts';
import { diffText, invisibleDifference } from '../files/invisible-difference.ts';
import { invocation, param } from '../base/message-marks.ts';
import type { EntryRecord } from '../session/manifest.ts';
import { FileSource, readEntryData } from '../zip/index.ts';
import { isNewArchive, openBase, sourceState } from '../session/source-state.ts';
import { diffWorkspace } from './workspace-diff.ts';
import { readLinkTarget } from './workspace-scan.ts';
import type { Base } from '../workspace/base.ts';

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
const TEXT_DIFF_MAX_BYTES = 16 << 20;

/** Text, or undefined for what a line diff cannot show (binary, not UTF-8 or UTF-16 with a BOM, too large). */
function asText(bytes: Uint8Array): string | undefined {
  if (bytes.length > TEXT_DIFF_MAX_BYTES) return undefined;
  return diffText(bytes);
}

/**
 * A changed file's bytes now, reached without links (beneath.ts) and opened
 * without blocking; empty when it vanished or changed kind since the scan.
 */
function readCurrent(beneath: Beneath, shown: string, link: boolean): Uint8Array {
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

/** Every changed path in scope, by path, with its diff: the diff command pages through them (paging.ts). */
export function diffAgainstArchive(
  root: string,
  base: Base,
  options: { path?: string; context: number },
): FileSection[] {
  const record = base.record;
  const fresh = isNewArchive(record);
  // The base's bytes are read through the descriptor checked to hold the base (source-state.ts).
  const opened = fresh ? undefined : openBase(record);
  const state = opened ? opened.state : sourceState(record);
  if (state === 'changed') {
    throw new ZipfsError(
      'CONFLICT_DETECTED',
      `The zip ${record.source_path} changed since the session opened it, so its entries are no longer the base ` +
        `to diff against. Sync with ${param('force')} to replace it, or close the session and open the zip again.`,
    );
  }
  if (state === 'missing' && !fresh) {
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `The zip ${record.source_path} is gone, and with it the original content to diff against; ` +
        `${invocation('status')} still lists the changes.`,
    );
  }
  const source = opened?.source;
  try {
    return sectionsOf(root, base, options, source);
  } finally {
    source?.close();
  }
}

/** The sections, with the base's entries read from `source` (none for a new archive). */
function sectionsOf(
  root: string,
  base: Base,
  options: { path?: string; context: number },
  source: FileSource | undefined,
): FileSection[] {
  const changes = diffWorkspace(root, base);
  const scope = options.path === undefined ? '' : normaliseToolPath(options.path);
  const inScope = (shown: string) => {
    const bare = shown.endsWith('/') ? shown.slice(0, -1) : shown;
    return scope === '' || bare === scope || bare.startsWith(`${scope}/`);
  };
  const unsupported = new Set(changes.unsupported.map((u) => u.path));
  const byPath = new Map(changes.entries.map((e) => [e.path, e]));
  const beneath = new Beneath(root);
  try {
    const original = (entry: EntryRecord | undefined): Uint8Array => {
      if (!entry || !source || entry.type === 'dir') return new Uint8Array(0);
      const location = {
        name: entry.name,
        flags: entry.flags,
        method: entry.method,
        compressedSize: entry.compressed_size,
        uncompressedSize: entry.size,
        crc32: entry.crc32,
        localHeaderOffset: entry.local_header_offset,
      };
      return entry.size > TEXT_DIFF_MAX_BYTES
        ? new Uint8Array(TEXT_DIFF_MAX_BYTES + 1)
        : readEntryData(source, location);
    };
    const current = (shown: string): Uint8Array => {
      const observed = changes.observed.get(shown);
      if (!observed || observed.kind === 'dir' || observed.kind === 'special' || unsupported.has(shown))
        return new Uint8Array(0);
      if (observed.kind !== 'symlink' && observed.size > TEXT_DIFF_MAX_BYTES)
        return new Uint8Array(TEXT_DIFF_MAX_BYTES + 1);
      return readCurrent(beneath, shown, observed.kind === 'symlink');
    };
    const renamedFrom = new Map(changes.renamed.map((rename) => [rename.to, rename]));
    const listed = [
      ...(['modified', 'added', 'deleted'] as const).flatMap((status) =>
        changes[status].map((shown) => [status, shown] as const),
      ),
      ...changes.renamed.map((rename) => ['renamed' as const, rename.to] as const),
    ];
    listed.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const sections: FileSection[] = [];
    for (const [status, shown] of listed) {
      const rename = status === 'renamed' ? renamedFrom.get(shown) : undefined;
      if (!inScope(shown) && !(rename && inScope(rename.from))) continue;
      const folder = shown.endsWith('/');
      const bare = folder ? shown.slice(0, -1) : shown;
      const was = rename ? (folder ? rename.from.slice(0, -1) : rename.from) : bare;
      const special = unsupported.has(shown) || changes.observed.get(bare)?.kind === 'special';
      // A rename whose content did not change shows no content, as git's does.
      const same = rename !== undefined && rename.modified !== true;
      const before = status === 'added' || folder || same ? new Uint8Array(0) : original(byPath.get(was));
      const after = status === 'deleted' || folder || same ? new Uint8Array(0) : current(bare);
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
        const diff = unifiedDiff(bare, beforeText!, afterText!, options.context);
        entry.additions = diff.additions;
        entry.deletions = diff.deletions;
        text += diff.text;
      }
      // Names in the diff's own lines are quoted as git quotes them (files[].path keeps the exact name).
      const header = `diff --git ${quoteName(`a/${was}`)} ${quoteName(`b/${bare}`)}`;
      sections.push({ file: entry, lines: text === '' ? [] : [header, ...text.slice(0, -1).split('\n')] });
    }
    return sections;
  } finally {
    beneath.close();
  }
}
