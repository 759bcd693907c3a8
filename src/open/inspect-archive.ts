/**
 * A look inside an archive before paying for extraction: entries, totals and
 * the comment, and a warning for everything open would refuse or guard, read
 * from the central directory alone (no entry data, no local headers). The
 * first warning is what open itself would answer, from the same plan; the
 * others list every entry concerned, which open, stopping at the first, does not.
 */
import { ZipfsError, toZipfsError } from '../errors.ts';
import type { Limits } from '../limits.ts';
import { LOCAL_HEADER_LENGTH, METHOD_NAMES } from '../zip/constants.ts';
import { FileSource, assertReadable, readCentralDirectory, type ZipEntry } from '../zip/index.ts';
import { printable } from '../zip/names.ts';
import { entryPath } from './entry-paths.ts';
import { planExtraction } from './extraction-plan.ts';

export interface InspectedEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink';
  size: number;
  compressed_size: number;
  method: string;
  modified_at: string;
}

export interface Inspection {
  entries: InspectedEntry[];
  total_entries: number;
  total_size: number;
  total_compressed: number;
  comment: string;
  warnings: string[];
}

const MAX_WARNINGS = 50;
const SYMLINK_NOTE = 'is a symbolic link: it is extracted as a regular file holding its target';

function entryWarnings(entries: ZipEntry[], limits: Limits): string[] {
  const warnings: string[] = [];
  const seen = new Map<string, string>();
  for (const entry of entries) {
    const name = `"${printable(entry.name)}"`;
    try {
      const { path } = entryPath(entry.name);
      const clash = seen.get(path);
      if (clash !== undefined) warnings.push(`${name} lands on the same path as "${printable(clash)}"`);
      seen.set(path, entry.name);
    } catch (error) {
      warnings.push(`${name}: ${toZipfsError(error).message.replace(/^Entry "[^"]*" /, '').replace(/; .*$/, '')}`);
    }
    try {
      assertReadable(entry);
    } catch (error) {
      warnings.push(toZipfsError(error).message.replace(/\. The archive is damaged.*$/, ''));
    }
    if (entry.isSymlink) warnings.push(`${name} ${SYMLINK_NOTE}`);
    const ratio = entry.uncompressedSize / Math.max(entry.compressedSize, 1);
    if (entry.uncompressedSize > limits.ratioFloorBytes && ratio > limits.maxEntryRatio) warnings.push(`${name} expands ${Math.round(ratio)}:1, over the per-entry limit of ${limits.maxEntryRatio}:1`);
  }
  const ordered = [...entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 1; i < ordered.length; i++) {
    const previous = ordered[i - 1]!;
    if (previous.localHeaderOffset + LOCAL_HEADER_LENGTH + previous.compressedSize > ordered[i]!.localHeaderOffset) {
      warnings.push(`"${printable(previous.name)}" and "${printable(ordered[i]!.name)}" overlap (shared data, a zip-bomb construction)`);
    }
  }
  return warnings;
}

export function inspectArchive(zipPath: string, limits: Limits, page: { start: number; max: number }): Inspection {
  let source: FileSource;
  try {
    source = new FileSource(zipPath);
  } catch (error) {
    if (error instanceof ZipfsError) throw error; // not a regular file: open's own refusal
    throw new ZipfsError('ZIP_NOT_FOUND', `No readable file at ${zipPath} (${(error as Error).message}); check the path.`);
  }
  try {
    const directory = readCentralDirectory(source);
    const { entries } = directory;
    const files = entries.filter((e) => !e.isDirectory);
    const totalSize = files.reduce((sum, e) => sum + e.uncompressedSize, 0);
    const totalCompressed = files.reduce((sum, e) => sum + e.compressedSize, 0);
    const warnings: string[] = [];
    let details: string[];
    try {
      planExtraction(directory, limits);
      // Everything else the scan below reports makes the plan fail: an archive open takes needs only the link notes.
      details = entries.filter((e) => e.isSymlink).map((e) => `"${printable(e.name)}" ${SYMLINK_NOTE}`);
    } catch (error) {
      const failure = toZipfsError(error);
      warnings.push(`open would refuse it (${failure.code}): ${failure.message}`);
      details = entryWarnings(entries, limits);
    }
    warnings.push(...details.slice(0, MAX_WARNINGS));
    if (details.length > MAX_WARNINGS) warnings.push(`and ${details.length - MAX_WARNINGS} more warnings like these`);
    return {
      entries: entries.slice(page.start, page.start + page.max).map((e) => ({
        name: e.name,
        type: e.isDirectory ? 'dir' : e.isSymlink ? 'symlink' : 'file',
        size: e.uncompressedSize,
        compressed_size: e.compressedSize,
        method: METHOD_NAMES[e.method] ?? `method ${e.method}`,
        modified_at: e.modifiedAt.toISOString().replace(/\.\d{3}Z$/, 'Z'),
      })),
      total_entries: entries.length,
      total_size: totalSize,
      total_compressed: totalCompressed,
      comment: directory.comment,
      warnings,
    };
  } finally {
    source.close();
  }
}
