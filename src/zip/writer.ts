/**
 * Streams a new archive to a file descriptor: raw byte ranges copied from the
 * source (unchanged entries, never decoded), freshly encoded entries, then the
 * central directory and end records. Offsets are relative to `base`, the
 * length of any prefix stub, following the source's convention.
 */
import fs from 'node:fs';
import { writeFully } from '../base/fd-io.ts';
import { COPY_THROUGH_BYTES, libc } from '../base/libc.ts';
import { CentralBuffer } from './central-buffer.ts';
import { encodeCentralRecord, encodeEnd, encodeLocalHeader, type EntryFields } from './records.ts';
import type { ExtraField } from './extra-fields.ts';

const BUFFER_BYTES = 1 << 20;
const COPY_CHUNK_BYTES = 8 << 20;
const PAGE_BYTES = 4096;
/** How much is written before the kernel is asked to start putting it on disk (see `writeback`). */
const WRITEBACK_STEP_BYTES = 8 << 20;

/**
 * Told of every raw copy before it is made (a remote session whose store copies on the server): answers which parts
 * of the source range `[start, end)`, written at `at`, to copy here; the rest is left a hole (sparse, never read).
 */
export interface CopyNotes {
  copying(start: number, end: number, at: number): [start: number, end: number][];
}

export class ZipWriter {
  private readonly central = new CentralBuffer();
  private position = 0;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private copyBuffer: Buffer | undefined;
  /** A raw range not copied yet: adjacent ranges (unchanged entries in a row) merge into one copy. */
  private pendingCopy: { fd: number; start: number; end: number } | undefined;
  /** Where the last writeback request ended. */
  private flushedTo = 0;
  /**
   * File positions where each piece the writer began starts: a fresh entry's local header, or a raw range that does
   * not continue the one before. Entries between two of these were copied in one range with the records moved alike:
   * the read-back check reads these and the ends of the runs (verify-written.ts), not every header copied.
   */
  readonly pieceStarts: number[] = [];

  constructor(
    private readonly fd: number,
    /** Length of a prefix stub: archive offsets count from here. */
    readonly base = 0,
    private readonly notes?: CopyNotes,
  ) {}

  /** Bytes written so far, counting what is still buffered: where the next entry starts. */
  get size(): number {
    return this.position + this.pendingBytes + (this.pendingCopy ? this.pendingCopy.end - this.pendingCopy.start : 0);
  }

  /** Like addCopiedRecord, for the record at `[start, start + length)` of a packed directory's region. */
  addCopiedRecordFrom(region: Uint8Array, start: number, length: number, localHeaderPosition: number): void {
    this.central.addRelocatedFrom(region, start, length, localHeaderPosition - this.base);
  }

  /**
   * Records of entries copied as one range, from `[start, end)` of a packed directory's region: each one's
   * local-header offset moved by `shift` (addShiftedRun, central-buffer.ts).
   */
  addCopiedRunFrom(region: Uint8Array, start: number, end: number, shift: number): void {
    this.central.addShiftedRun(region, start, end, shift);
  }

  /** Room for a directory of about `bytes` (the source's): made once, not grown by doubling. */
  reserveDirectory(bytes: number): void {
    this.central.reserveTotal(bytes);
  }

  /** Copies `[start, end)` of the source file verbatim (a prefix stub, or unchanged entries).
   * The copy is deferred so that the ranges of consecutive unchanged entries become one. */
  copyRange(sourceFd: number, start: number, end: number): void {
    const pending = this.pendingCopy;
    if (pending && pending.fd === sourceFd && pending.end === start) {
      pending.end = end;
      return;
    }
    this.flushCopy();
    this.flush();
    this.pieceStarts.push(this.position);
    this.pendingCopy = { fd: sourceFd, start, end };
  }

  private flushCopy(): void {
    const pending = this.pendingCopy;
    if (!pending) return;
    this.pendingCopy = undefined;
    const start = this.position;
    const whole: [number, number][] = [[pending.start, pending.end]];
    const here = this.notes ? this.notes.copying(pending.start, pending.end, start) : whole;
    for (const [from, to] of here) {
      this.position = start + (from - pending.start);
      this.copyBytes(pending.fd, from, to);
    }
    this.position = start + (pending.end - pending.start); // past any hole: the next write makes it sparse
  }

  private copyBytes(fd: number, start: number, end: number): void {
    let at = start;
    // The kernel copies between the two files itself where it can (no trip through this process's memory), when the
    // range lands at the same place within a page as it was read from. Shifted by anything else (a changed entry before
    // it grew or shrank by a few bytes: most syncs), its copy took twice as long as a read and a write through this
    // process (122 MiB on ext4: 78-85 ms against 38-44, and its flush 46-51 ms against 32-34).
    // Those go through a buffer outside the runtime's heap (Libc.copyThrough): a 1 MiB one of the heap's added 1 MB
    // to the 8 MiB of allocation that sets off a collection (4 ms in a one-file sync of 2,500 entries).
    const native = libc();
    const inKernel = (start - this.position) % PAGE_BYTES === 0;
    while (native && at < end) {
      const n = inKernel
        ? native.copyFileRange(fd, at, this.fd, this.position, Math.min(COPY_CHUNK_BYTES, end - at))
        : native.copyThrough(fd, at, this.fd, this.position, end - at);
      // not for this pair of files (another file system, an old kernel), or the source ended: copy below
      if (n <= 0) break;
      at += n;
      this.position += n;
      this.writeback();
    }
    while (at < end) {
      // The portable copy, in copyThrough's steps.
      this.copyBuffer ??= Buffer.allocUnsafe(COPY_THROUGH_BYTES);
      const n = fs.readSync(fd, this.copyBuffer, 0, Math.min(COPY_THROUGH_BYTES, end - at), at);
      if (n === 0) throw new Error(`source ended at ${at}, before ${end}`);
      this.writeAll(this.copyBuffer.subarray(0, n));
      at += n;
    }
  }

  /**
   * Starts writing what is complete to disk while the rest is still being
   * produced, every few MiB: the fsync that ends a sync then waits for the
   * last few MiB instead of the whole archive (on Linux; elsewhere a no-op).
   */
  private writeback(): void {
    if (this.position - this.flushedTo < WRITEBACK_STEP_BYTES) return;
    libc()?.startWriteback(this.fd, this.flushedTo, this.position - this.flushedTo);
    this.flushedTo = this.position;
  }

  /** Records a copied entry's central-directory record, moved to where its local header now starts. */
  addCopiedRecord(record: Uint8Array, localHeaderPosition: number): void {
    this.central.addRelocated(record, localHeaderPosition - this.base);
  }

  /**
   * Writes a new entry whose data is already compressed as `fields.method` says; returns its central-directory record.
   */
  addEntry(fields: EntryFields, localExtra: ExtraField[], centralExtra: ExtraField[], data: Uint8Array): Uint8Array {
    const offset = this.size - this.base;
    this.pieceStarts.push(this.size);
    this.push(encodeLocalHeader(fields, localExtra));
    this.push(data);
    const record = encodeCentralRecord(fields, centralExtra, offset);
    this.central.add(record);
    return record;
  }

  /**
   * Writes an entry whose data comes in pieces (a large workspace file): the
   * local header goes out first with the CRC and sizes still unknown, the data
   * follows as `produce` hands it over, and the header is written again in
   * place once they are known, so memory holds one piece, never the file.
   * `fields.zip64` must be set when the sizes may need 64 bits: the header
   * cannot grow afterwards. Returns the entry's central-directory record.
   */
  async addStreamedEntry(
    fields: EntryFields,
    localExtra: ExtraField[],
    centralExtra: ExtraField[],
    produce: (
      write: (chunk: Uint8Array) => void,
    ) => Promise<Pick<EntryFields, 'crc32' | 'uncompressedSize' | 'compressedSize'>>,
  ): Promise<Uint8Array> {
    const offset = this.size - this.base;
    const headerAt = this.size;
    this.pieceStarts.push(headerAt);
    const placeholder = encodeLocalHeader(fields, localExtra);
    this.push(placeholder);
    const sizes = await produce((chunk) => this.push(chunk));
    const final = { ...fields, ...sizes };
    const header = encodeLocalHeader(final, localExtra);
    if (header.length !== placeholder.length)
      throw new Error(`the file grew past 4 GiB while it was read (${final.uncompressedSize} bytes); sync again`);
    this.flush();
    this.flushCopy();
    writeFully(this.fd, header, headerAt);
    const record = encodeCentralRecord(final, centralExtra, offset);
    this.central.add(record);
    return record;
  }

  /**
   * Writes the central directory and end records. Returns the archive's size,
   * where each central record landed (file offsets, in entry order), and the
   * SHA-256 of everything from the directory to the end of the file: what
   * identifies the archive (manifest.ts, fingerprintSource) without reading it back.
   */
  finish(comment: Uint8Array, keepZip64: boolean): { size: number; centralOffsets: number[]; directorySha256: string } {
    const directoryStart = this.size;
    const directory = this.central.contents();
    const directorySize = directory.length;
    const count = this.central.count;
    const centralOffsets = this.central.recordStarts().map((start) => directoryStart + start);
    const hash = new Bun.CryptoHasher('sha256').update(directory);
    // Written as it is: joined to what is buffered (Buffer.concat of a Uint8Array view) it cost ~3 ms at 2,500 entries.
    this.flushCopy();
    this.flush();
    this.writeAll(directory);
    this.central.clear(); // written: let it go even while a caller still holds the writer
    const end = encodeEnd(count, directoryStart - this.base, directorySize, comment, keepZip64);
    this.push(end);
    hash.update(end);
    this.flush();
    this.flushCopy();
    return { size: this.position, centralOffsets, directorySha256: hash.digest('hex') };
  }

  private push(bytes: Uint8Array): void {
    this.flushCopy();
    if (bytes.length >= BUFFER_BYTES) {
      this.flush();
      this.writeAll(bytes);
      return;
    }
    this.pending.push(bytes);
    this.pendingBytes += bytes.length;
    if (this.pendingBytes >= BUFFER_BYTES) this.flush();
  }

  private flush(): void {
    if (this.pendingBytes === 0) return;
    const joined = Buffer.concat(this.pending, this.pendingBytes);
    this.pending = [];
    this.pendingBytes = 0;
    this.writeAll(joined);
  }

  private writeAll(bytes: Uint8Array): void {
    writeFully(this.fd, bytes, this.position);
    this.position += bytes.length;
    this.writeback();
  }
}
