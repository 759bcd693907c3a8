import fs from 'node:fs';
import { readFully } from '../base/fd-io.ts';
import { openZipFile } from './zip-file.ts';

/**
 * Random access to an archive's bytes. Entries are read by offset, so an
 * archive never has to fit in memory; a read-ahead window makes the common
 * walk in offset order cost one system call per window, not per entry.
 */
export interface ZipSource {
  readonly size: number;
  /** Returns exactly `length` bytes at `offset`, or fewer at the end of the
   * source. Windows are never reused, so a returned view stays valid. */
  read(offset: number, length: number): Uint8Array;
  close(): void;
}

const WINDOW_BYTES = 4 * 1024 * 1024;

/** A source over a zip file. What is not a regular file (a FIFO, a device, a folder) is
 * refused before a byte is read, with a ZipfsError (files/zip-file.ts). */
export class FileSource implements ZipSource {
  readonly size: number;
  /** The one descriptor every read goes through: the directory and the entries it names come from
   * the same file, whatever is renamed over the path meanwhile (a sync of another session). */
  readonly fd: number;
  /** The file as it was opened (fstat of `fd`). */
  readonly stats: fs.Stats;
  /** False for a view sharing another source's descriptor (sharing): closing it leaves the descriptor open. */
  private readonly owns: boolean;
  private window: Uint8Array = new Uint8Array(0);
  private windowStart = 0;
  private peeked: Uint8Array = new Uint8Array(0);
  private peekStart = 0;
  private peekLength = 0;

  /** `windowBytes`: how much each read fetches ahead. 4 MiB suits extraction, which reads
   * everything; a pass over local headers alone wants a small one (64 KiB), or it would
   * read megabytes of data it skips for every large entry. */
  constructor(
    path: string | { fd: number; stats: fs.Stats },
    private readonly windowBytes = WINDOW_BYTES,
  ) {
    const { fd, stats } = typeof path === 'string' ? openZipFile(path) : path;
    this.fd = fd;
    this.stats = stats;
    this.size = stats.size;
    this.owns = typeof path === 'string';
  }

  /** Whether one read window holds the whole file: its first read brings every byte in, for every later read. */
  get fitsInWindow(): boolean {
    return this.size <= this.windowBytes;
  }

  /** Another window over the same open file (a pass over local headers wants a small one); it does
   * not own the descriptor: this source must stay open while it is used. */
  sharing(windowBytes: number): FileSource {
    return new FileSource({ fd: this.fd, stats: this.stats }, windowBytes);
  }

  read(offset: number, length: number): Uint8Array {
    const end = Math.min(offset + length, this.size);
    if (offset < 0 || offset >= end) return new Uint8Array(0);
    const want = end - offset;
    if (offset >= this.windowStart && end <= this.windowStart + this.window.length) {
      return this.window.subarray(offset - this.windowStart, end - this.windowStart);
    }
    if (want >= this.windowBytes / 2) return this.readExact(offset, want);
    this.window = this.readExact(offset, Math.min(this.windowBytes, this.size - offset));
    this.windowStart = offset;
    return this.window.subarray(0, want);
  }

  /**
   * Makes `[offset, offset + length)` available in `view` and returns where it starts there, or
   * -1 when the file ends first: read's twin for loops over a million entries, where a view per
   * read would be a million objects. `view` is valid until the next read or peek.
   */
  peek(offset: number, length: number): number {
    if (offset < 0 || offset + length > this.size) return -1;
    if (offset < this.peekStart || offset + length > this.peekStart + this.peekLength) {
      // One buffer, reused: peek hands out no views, so nothing can see it change (read's windows are never reused).
      const want = Math.min(Math.max(this.windowBytes, length), this.size - offset);
      if (this.peeked.length < want) this.peeked = new Uint8Array(want);
      this.peekLength = readFully(this.fd, this.peeked.subarray(0, want), offset);
      this.peekStart = offset;
      if (this.peekLength < length) return -1;
    }
    return offset - this.peekStart;
  }

  get view(): Uint8Array {
    return this.peeked;
  }

  close(): void {
    if (this.owns) fs.closeSync(this.fd);
  }

  private readExact(offset: number, length: number): Uint8Array {
    // Not zero-filled first (every byte is read into, or cut off below): zeroing a window cost as much as reading it.
    const unfilled = Buffer.allocUnsafe(length);
    const buffer = new Uint8Array(unfilled.buffer, unfilled.byteOffset, length);
    const done = readFully(this.fd, buffer, offset);
    return done === length ? buffer : buffer.subarray(0, done);
  }
}

/** A source over bytes already in memory (tests, small archives). */
export class BufferSource implements ZipSource {
  constructor(private readonly bytes: Uint8Array) {}

  get size(): number {
    return this.bytes.length;
  }

  read(offset: number, length: number): Uint8Array {
    if (offset < 0) return new Uint8Array(0);
    return this.bytes.subarray(offset, Math.min(offset + length, this.bytes.length));
  }

  close(): void {}
}
