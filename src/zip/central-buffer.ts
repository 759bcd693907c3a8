/**
 * The central directory of an archive being written, gathered in one growing
 * buffer: a sync of 100,000 entries would otherwise hold 100,000 small arrays
 * (each with its own object and backing store) until the end, and hash and
 * write them one by one.
 */
import { relocateCentralRecord, relocatesInPlace } from './records.ts';

const INITIAL_BYTES = 64 * 1024;

export class CentralBuffer {
  private bytes = new Uint8Array(INITIAL_BYTES);
  private view = new DataView(this.bytes.buffer);
  private used = 0;
  /** Where each record starts in the buffer, in the order they were added. */
  private readonly starts: number[] = [];

  get count(): number {
    return this.starts.length;
  }

  get length(): number {
    return this.used;
  }

  /**
   * Makes room for `bytes` of records at once: growing by doubling holds the old and the new buffer together, 1.5 times
   * a large directory.
   */
  reserveTotal(bytes: number): void {
    if (bytes > this.bytes.length) this.reserve(bytes - this.used);
  }

  /** Appends a record as it is. */
  add(record: Uint8Array): void {
    this.reserve(record.length);
    this.starts.push(this.used);
    this.bytes.set(record, this.used);
    this.used += record.length;
  }

  /** Appends a copied record with its local-header offset changed: in place when the 32-bit field holds it. */
  addRelocated(record: Uint8Array, offset: number): void {
    this.addRelocatedFrom(record, 0, record.length, offset);
  }

  /**
   * Appends the record at `[start, start + length)` of `region` with its local-header offset
   * changed, copied straight from there: a million copied records must not be a million views.
   */
  addRelocatedFrom(region: Uint8Array, start: number, length: number, offset: number): void {
    // A zip64 field holds the offset, or must: the record is rebuilt.
    if (!relocatesInPlace(region, offset, start))
      return this.add(relocateCentralRecord(region.subarray(start, start + length), offset));
    this.reserve(length);
    this.starts.push(this.used);
    const bytes = this.bytes;
    const at = this.used;
    // records are short: a loop beats making a view to copy from
    for (let i = 0; i < length; i++) bytes[at + i] = region[start + i]!;
    this.view.setUint32(at + 42, offset, true);
    this.used += length;
  }

  /**
   * Appends the records at `[start, end)` of `region` in one piece, each one's local-header offset moved by `shift`:
   * a run of unchanged entries copied together (sync). The caller makes sure no offset is held in a zip64 field and
   * every moved one fits 32 bits.
   */
  addShiftedRun(region: Uint8Array, start: number, end: number, shift: number): void {
    this.reserve(end - start);
    const first = this.used;
    this.bytes.set(region.subarray(start, end), first);
    const view = this.view;
    for (let at = first; at < first + end - start; ) {
      this.starts.push(at);
      view.setUint32(at + 42, view.getUint32(at + 42, true) + shift, true);
      at += 46 + view.getUint16(at + 28, true) + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
    }
    this.used += end - start;
  }

  /** Offsets of the records within the directory, in order. */
  recordStarts(): readonly number[] {
    return this.starts;
  }

  /** The directory's bytes; valid until the next add. */
  contents(): Uint8Array {
    return this.bytes.subarray(0, this.used);
  }

  /** Lets the memory go once the directory is written. */
  clear(): void {
    this.bytes = new Uint8Array(0);
    this.view = new DataView(this.bytes.buffer);
    this.used = 0;
    this.starts.length = 0;
  }

  private reserve(more: number): void {
    if (this.used + more <= this.bytes.length) return;
    const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.used + more, INITIAL_BYTES));
    grown.set(this.bytes.subarray(0, this.used));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }
}
