/**
 * Where every entry's bytes lie, checked against each other: each entry's
 * local header must sit inside the archive, and its data must end before the
 * next entry (in file order) begins, the last one before the central
 * directory, and the local header must agree with the central record. Directory entries too: they have no data to
 * extract, but sync
 * copies every unchanged entry as the byte range these fields describe, so a
 * damaged folder entry would become a damaged archive written over the user's
 * zip. Open runs this before extracting anything; sync runs it on the archive
 * it wrote, before the rename. Only headers are read, nothing is inflated.
 */
import { ZipfsError } from '../base/errors.ts';
import { ByteReader } from './bytes.ts';
import {
  CENTRAL_HEADER_LENGTH,
  FLAGS_THAT_MATTER,
  FLAG_DATA_DESCRIPTOR,
  LOCAL_HEADER_LENGTH,
  MAX_VERSION_NEEDED,
  SIG_LOCAL_HEADER,
  UINT32_MAX,
} from './constants.ts';
import { applyZip64, parseExtraFields } from './extra-fields.ts';
import { quoted } from '../format/quote-name.ts';
import type { ZipSource } from './source.ts';
import type { CentralDirectory, ZipEntry } from './types.ts';
import type { PackedDirectory } from './packed-directory.ts';
import type { FileSource } from './source.ts';

/** A fault in the layout of `entry`; `overlap` marks entries sharing bytes, the zip-bomb construction. */
export class LayoutError extends Error {
  constructor(
    message: string,
    readonly overlap: boolean,
    readonly entry: ZipEntry,
  ) {
    super(message);
  }
}

/** Throws a LayoutError naming the first entry whose range or headers are not sound. */
export function checkLayout(source: ZipSource, directory: CentralDirectory): void {
  for (const fault of layoutFaults(source, directory)) throw fault;
}

/** Every entry whose range or headers are not sound, in file order: one fault per entry, its first. */
export function* layoutFaults(source: ZipSource, directory: CentralDirectory): Generator<LayoutError> {
  const ordered = [...directory.entries].sort((a, b) => a.localHeaderOffset - b.localHeaderOffset);
  for (let i = 0; i < ordered.length; i++) {
    const fault = entryFault(source, directory, ordered[i]!, ordered[i + 1]);
    if (fault) yield fault;
  }
}

/** The first fault of `entry`, whose data must end before `next` (in file order) or the central directory. */
function entryFault(
  source: ZipSource,
  directory: CentralDirectory,
  entry: ZipEntry,
  next: ZipEntry | undefined,
): LayoutError | undefined {
  return entryLayoutFault(
    source,
    entry,
    next?.localHeaderOffset ?? directory.centralStart,
    directory.centralStart,
    next,
  );
}

/**
 * The first fault of one entry, whose bytes must end by `limit` (the next local header in file
 * order, or the directory at `centralStart`): for an entry read on its own, as a lazy session reads.
 */
export function entryLayoutFault(
  source: ZipSource,
  entry: ZipEntry,
  limit: number,
  centralStart: number,
  next?: ZipEntry,
): LayoutError | undefined {
  const at = entry.localHeaderOffset;
  if (at < 0 || at + LOCAL_HEADER_LENGTH > centralStart) {
    return new LayoutError(
      `${describe(entry)} has its local header at offset ${at}, outside the entries' area (0..${centralStart})`,
      false,
      entry,
    );
  }
  const header = source.read(at, LOCAL_HEADER_LENGTH);
  const reader = new ByteReader(header.length === LOCAL_HEADER_LENGTH ? header : new Uint8Array(LOCAL_HEADER_LENGTH));
  if (header.length < LOCAL_HEADER_LENGTH || reader.u32(0) !== SIG_LOCAL_HEADER) {
    return new LayoutError(`${describe(entry)} points at offset ${at}, where there is no local header`, false, entry);
  }
  const dataEnd = at + LOCAL_HEADER_LENGTH + reader.u16(26) + reader.u16(28) + entry.compressedSize;
  if (dataEnd > limit) {
    const into = next
      ? `into ${describe(next)}`
      : limit < centralStart
        ? 'into the next entry'
        : 'into the central directory';
    return new LayoutError(
      `${describe(entry)} has data running ${dataEnd - limit} bytes ${into}`,
      limit < centralStart,
      entry,
    );
  }
  const problem = centralProblem(entry);
  if (problem) return new LayoutError(`${describe(entry)} ${problem}`, false, entry);
  const disagreement = localDisagreement(source, entry, reader);
  if (disagreement) return new LayoutError(`${describe(entry)}: its local header ${disagreement}`, false, entry);
  return undefined;
}

/**
 * What the local header says otherwise than the central record, if anything.
 * Readers differ in which one they trust (Python checks the local name,
 * Info-ZIP takes CRC and sizes from the local header unless a data descriptor
 * follows), so an entry whose two headers disagree would read differently in
 * each, and sync, which copies local headers verbatim, would pass that on.
 */
function localDisagreement(source: ZipSource, entry: ZipEntry, local: ByteReader): string | undefined {
  const nameLength = local.u16(26);
  if (nameLength !== entry.rawName.length) return 'gives another name than the central directory';
  const name = source.read(entry.localHeaderOffset + LOCAL_HEADER_LENGTH, nameLength);
  for (let i = 0; i < nameLength; i++)
    if (name[i] !== entry.rawName[i]) return 'gives another name than the central directory';
  if (local.u16(8) !== entry.method) return 'gives another compression method than the central directory';
  const flags = local.u16(6);
  if ((flags & FLAGS_THAT_MATTER) !== (entry.flags & FLAGS_THAT_MATTER))
    return 'gives other flags (encryption, data descriptor or UTF-8) than the central directory';
  const extra = source.read(entry.localHeaderOffset + LOCAL_HEADER_LENGTH + nameLength, local.u16(28));
  if (!wellFormedExtra(extra)) return 'has a malformed extra-field block';
  if (flags & FLAG_DATA_DESCRIPTOR) return undefined; // CRC and sizes follow the data
  if (local.u32(14) !== entry.crc32) return 'gives another CRC-32 than the central directory';
  let compressed = local.u32(18);
  let uncompressed = local.u32(22);
  if (compressed === UINT32_MAX || uncompressed === UINT32_MAX) {
    const zip64 = applyZip64(parseExtraFields(extra), {
      uncompressedSize: uncompressed,
      compressedSize: compressed,
      localHeaderOffset: 0,
    });
    if (!zip64) return 'has sizes of 0xFFFFFFFF but no zip64 field';
    ({ compressedSize: compressed, uncompressedSize: uncompressed } = zip64);
  }
  if (compressed !== entry.compressedSize || uncompressed !== entry.uncompressedSize)
    return 'gives other sizes than the central directory';
  return undefined;
}

/** Whether every field of an extra-field block fits in it. Up to 3 bytes left over at the end are
 * tolerated, as Python and Info-ZIP do; a field whose size runs past the block is not. */
function wellFormedExtra(block: Uint8Array): boolean {
  return wellFormedExtraAt(block, 0, block.length);
}

/** What no reader should be handed, in the central record itself. */
function centralProblem(entry: ZipEntry): string | undefined {
  if ((entry.versionNeeded & 0xff) > MAX_VERSION_NEEDED)
    return `needs zip version ${(entry.versionNeeded & 0xff) / 10}, newer than any specification (6.3)`;
  if (!wellFormedExtra(entry.rawExtra)) return 'has a malformed extra-field block in the central directory';
  return undefined;
}

function describe(entry: ZipEntry): string {
  return `Entry ${quoted(entry.name)}`;
}

/** A layout fault as open refuses it: overlapping entries are a bomb, the rest damage. */
export function openRefusal(fault: LayoutError): ZipfsError {
  if (fault.overlap)
    return new ZipfsError(
      'ZIP_BOMB_DETECTED',
      `${fault.message} (overlapping entries, a zip-bomb construction); the archive was refused.`,
    );
  return new ZipfsError(
    'ZIP_INVALID',
    `${fault.message}. The archive is damaged: zipfs could not write it back faithfully, so it was not opened. ` +
      `Repair it first (zip -FF in.zip --out fixed.zip) and open the repaired copy.`,
  );
}

/**
 * entryLayoutFault for entry `index` of a packed directory, read in place: a
 * sync's check of an archive of a million entries must not parse a million
 * records into objects. Only a fault is described from the parsed entry.
 */
export function packedLayoutFault(
  source: FileSource,
  directory: PackedDirectory,
  index: number,
  limit: number,
  next?: number,
): LayoutError | undefined {
  const at = directory.localHeaderOffset(index);
  if (at < 0 || at + LOCAL_HEADER_LENGTH > directory.centralStart)
    return parsedFault(source, directory, index, limit, next);
  let h = source.peek(at, LOCAL_HEADER_LENGTH);
  if (h < 0 || le32(source.view, h) !== SIG_LOCAL_HEADER) return parsedFault(source, directory, index, limit, next);
  const nameLength = le16(source.view, h + 26);
  const localExtraLength = le16(source.view, h + 28);
  const compressed = directory.compressedSize(index);
  if (at + LOCAL_HEADER_LENGTH + nameLength + localExtraLength + compressed > limit)
    return parsedFault(source, directory, index, limit, next);
  if ((directory.field16(index, 6) & 0xff) > MAX_VERSION_NEEDED)
    return parsedFault(source, directory, index, limit, next);
  const region = directory.region;
  const name = directory.recordStart(index) + CENTRAL_HEADER_LENGTH;
  const centralNameLength = directory.nameLength(index);
  const centralExtra = name + centralNameLength;
  if (!wellFormedExtraAt(region, centralExtra, centralExtra + directory.field16(index, 30)))
    return parsedFault(source, directory, index, limit, next);
  if (nameLength !== centralNameLength) return parsedFault(source, directory, index, limit, next);
  h = source.peek(at, LOCAL_HEADER_LENGTH + nameLength + localExtraLength); // header, name and extra together
  if (h < 0) return parsedFault(source, directory, index, limit, next);
  const view = source.view;
  for (let i = 0; i < nameLength; i++)
    if (view[h + LOCAL_HEADER_LENGTH + i] !== region[name + i])
      return parsedFault(source, directory, index, limit, next);
  if (le16(view, h + 8) !== directory.method(index)) return parsedFault(source, directory, index, limit, next);
  const flags = le16(view, h + 6);
  if ((flags & FLAGS_THAT_MATTER) !== (directory.flags(index) & FLAGS_THAT_MATTER))
    return parsedFault(source, directory, index, limit, next);
  const localExtra = h + LOCAL_HEADER_LENGTH + nameLength;
  if (!wellFormedExtraAt(view, localExtra, localExtra + localExtraLength))
    return parsedFault(source, directory, index, limit, next);
  if (flags & FLAG_DATA_DESCRIPTOR) return undefined;
  if (le32(view, h + 14) !== directory.field32(index, 16)) return parsedFault(source, directory, index, limit, next);
  // Sizes saturated for zip64, or differing: the general check decides, and says why.
  const localCompressed = le32(view, h + 18);
  const localUncompressed = le32(view, h + 22);
  if (
    localCompressed === UINT32_MAX ||
    localUncompressed === UINT32_MAX ||
    localCompressed !== compressed ||
    localUncompressed !== directory.uncompressedSize(index)
  ) {
    return entryLayoutFault(
      source,
      directory.entry(index),
      limit,
      directory.centralStart,
      next === undefined ? undefined : directory.entry(next),
    );
  }
  return undefined;
}

/** wellFormedExtra over `[from, to)` of `bytes`, without a view. */
function wellFormedExtraAt(bytes: Uint8Array, from: number, to: number): boolean {
  let at = from;
  while (to - at >= 4) {
    at += 4 + le16(bytes, at + 2);
    if (at > to) return false;
  }
  return true;
}

/** The fault of entry `index`, from the parsed entry: where the packed check found one, this one names it. */
function parsedFault(
  source: ZipSource,
  directory: PackedDirectory,
  index: number,
  limit: number,
  next: number | undefined,
): LayoutError {
  const entry = directory.entry(index);
  return (
    entryLayoutFault(
      source,
      entry,
      limit,
      directory.centralStart,
      next === undefined ? undefined : directory.entry(next),
    ) ?? new LayoutError(`${describe(entry)} has headers that do not agree`, false, entry)
  );
}

function le16(bytes: Uint8Array, at: number): number {
  return bytes[at]! | (bytes[at + 1]! << 8);
}

function le32(bytes: Uint8Array, at: number): number {
  return (le16(bytes, at) | (le16(bytes, at + 2) << 16)) >>> 0;
}
