/**
 * A look inside an archive before paying for extraction: entries, totals and
 * the comment, and every refusal open would make, from open's own checks
 * (archive-checks.ts) run to the end instead of stopping at the first: the
 * first refusal is what open answers, with its code and words, and the others
 * name every other entry concerned. Symlink entries get a note (open extracts
 * them as regular files). Only the central directory and the local headers
 * are read, no entry data.
 */
import { ZipfsError, isSystemError, pathUnusable } from '../base/errors.ts';
import type { Limits } from '../rules/limits.ts';
import { METHOD_NAMES } from '../zip/constants.ts';
import {
  FileSource,
  decodeCodePage,
  encryptionOf,
  innerMethodOf,
  lockedEntry,
  readCentralDirectory,
  type CodePage,
  type EncryptionKind,
  type ZipEntry,
} from '../zip/index.ts';
import { nameWarning } from './name-warning.ts';
import { quoted } from '../format/quote-name.ts';
import { checkArchive } from './archive-checks.ts';
import type { WorkspaceTarget } from './workspace-rules.ts';

export interface InspectedEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink';
  size: number;
  compressed_size: number;
  method: string;
  modified_at: string;
  /** How the entry is encrypted, when it is (without a password it stays in the zip when opened). */
  encrypted?: EncryptionKind;
}

export interface Inspection {
  entries: InspectedEntry[];
  total_entries: number;
  total_size: number;
  total_compressed: number;
  comment: string;
  /**
   * Open's refusals first, each `open would refuse it (CODE): message` with open's own code and message; then notes.
   */
  warnings: string[];
}

/** Refusals and warnings shown at most; a hostile archive may have one per entry. */
const MAX_WARNINGS = 50;
export const SYMLINK_NOTE = 'is a symbolic link: it is extracted as a regular file holding its target';

export function inspectArchive(
  zipPath: string,
  limits: Limits,
  target: WorkspaceTarget,
  page: { start: number; max: number },
  nameEncoding?: CodePage,
): Inspection {
  let source: FileSource;
  try {
    source = new FileSource(zipPath);
  } catch (error) {
    if (error instanceof ZipfsError) throw error; // not a regular file: open's own refusal
    if (isSystemError(error, 'ENAMETOOLONG', 'ELOOP')) throw pathUnusable(error);
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `No readable file at ${zipPath} (${(error as Error).message}); check the path.`,
    );
  }
  try {
    const directory = readCentralDirectory(source, nameEncoding);
    const { entries } = directory;
    const files = entries.filter((e) => !e.isDirectory);
    // Only the first refusals are kept (a hostile archive may have one per entry); the rest are counted.
    const refusals: ZipfsError[] = [];
    let refused = 0;
    checkArchive(source, directory, limits, target, (refusal) => {
      if (refused++ < MAX_WARNINGS) refusals.push(refusal);
    });
    const names = nameWarning(entries, nameEncoding);
    const notes = [
      ...(names ? [names] : []),
      ...entries.filter((e) => e.isSymlink).map((e) => `${quoted(e.name)} ${SYMLINK_NOTE}`),
    ];
    const locked = entries.filter(lockedEntry).length;
    if (locked > 0) notes.push(lockedNote(locked));
    const warnings = [...refusals.map((r) => `open would refuse it (${r.code}): ${r.message}`), ...notes];
    const unshown = refused - refusals.length + Math.max(0, warnings.length - MAX_WARNINGS);
    return {
      entries: entries.slice(page.start, page.start + page.max).map((e) => ({
        name: e.name,
        type: e.isDirectory ? 'dir' : e.isSymlink ? 'symlink' : 'file',
        size: e.uncompressedSize,
        compressed_size: e.compressedSize,
        method: METHOD_NAMES[innerMethodOf(e)] ?? `method ${innerMethodOf(e)}`,
        modified_at: e.modifiedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        ...encryptedField(e),
      })),
      total_entries: entries.length,
      total_size: files.reduce((sum, e) => sum + e.uncompressedSize, 0),
      total_compressed: files.reduce((sum, e) => sum + e.compressedSize, 0),
      // The archive comment has no UTF-8 flag: a tool that wrote names in a code page wrote it in the same one.
      comment: (nameEncoding && decodeCodePage(directory.commentBytes, nameEncoding)) || directory.comment,
      warnings:
        unshown > 0 ? [...warnings.slice(0, MAX_WARNINGS), `and ${unshown} more warnings like these`] : warnings,
    };
  } finally {
    source.close();
  }
}

/** `encrypted` for an entry under a layer zipfs knows (its method is then the one under it, for WinZip AES). */
function encryptedField(entry: ZipEntry): { encrypted?: EncryptionKind } {
  const kind = encryptionOf(entry);
  return kind ? { encrypted: kind } : {};
}

/** The note on encrypted entries zipfs has no key for: open keeps them in the zip. */
function lockedNote(count: number): string {
  return (
    `${count} ${count === 1 ? 'entry is' : 'entries are'} encrypted and zipfs has no password: open extracts the ` +
    `other entries and keeps these in the zip (listed, not readable), and sync copies them as they are`
  );
}
