/**
 * Where every entry's bytes lie, checked against each other: each entry's
 * local header must sit inside the archive, and its data must end before the
 * next entry (in file order) begins, the last one before the central
 * directory. Directory entries too: they have no data to extract, but sync
 * copies every unchanged entry as the byte range these fields describe, so a
 * damaged folder entry would become a damaged archive written over the user's
 * zip. Open runs this before extracting anything; sync runs it on the archive
 * it wrote, before the rename. Only headers are read, nothing is inflated.
 */
import { ZipfsError } from '../errors.ts';
import { ByteReader } from './bytes.ts';
import { LOCAL_HEADER_LENGTH, SIG_LOCAL_HEADER } from './constants.ts';
import { printable } from './names.ts';
import type { ZipSource } from './source.ts';
import type { CentralDirectory, ZipEntry } from './types.ts';

/** A fault in the layout; `overlap` marks entries sharing bytes, the zip-bomb construction. */
export class LayoutError extends Error {
  constructor(
    message: string,
    readonly overlap: boolean,
  ) {
    super(message);
  }
}

/** Throws a LayoutError naming the first entry whose range is not sound. */
export function checkLayout(source: ZipSource, directory: CentralDirectory): void {
  const ordered = [...directory.entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 0; i < ordered.length; i++) {
    const entry = ordered[i]!;
    const next = ordered[i + 1];
    const limit = next?.localHeaderOffset ?? directory.centralStart;
    const at = entry.localHeaderOffset;
    if (at < 0 || at + LOCAL_HEADER_LENGTH > directory.centralStart) {
      throw new LayoutError(`${describe(entry)} has its local header at offset ${at}, outside the entries' area (0..${directory.centralStart})`, false);
    }
    const header = source.read(at, LOCAL_HEADER_LENGTH);
    const reader = new ByteReader(header.length === LOCAL_HEADER_LENGTH ? header.slice() : new Uint8Array(LOCAL_HEADER_LENGTH));
    if (header.length < LOCAL_HEADER_LENGTH || reader.u32(0) !== SIG_LOCAL_HEADER) {
      throw new LayoutError(`${describe(entry)} points at offset ${at}, where there is no local header`, false);
    }
    const dataEnd = at + LOCAL_HEADER_LENGTH + reader.u16(26) + reader.u16(28) + entry.compressedSize;
    if (dataEnd > limit) {
      const into = next ? `into ${describe(next)}` : 'into the central directory';
      throw new LayoutError(`${describe(entry)} has data running ${dataEnd - limit} bytes ${into}`, next !== undefined);
    }
  }
}

function describe(entry: ZipEntry): string {
  return `Entry "${printable(entry.name)}"`;
}

/** checkLayout for an archive about to be opened: overlaps are a bomb, the rest damage. */
export function assertOpenableLayout(source: ZipSource, directory: CentralDirectory): void {
  try {
    checkLayout(source, directory);
  } catch (error) {
    if (!(error instanceof LayoutError)) throw error;
    if (error.overlap) throw new ZipfsError('ZIP_BOMB_DETECTED', `${error.message} (overlapping entries, a zip-bomb construction); the archive was refused.`);
    throw new ZipfsError('ZIP_INVALID', `${error.message}. The archive is damaged: zipfs could not write it back faithfully, so it was not opened. Repair it first (zip -FF in.zip --out fixed.zip) and open the repaired copy.`);
  }
}
