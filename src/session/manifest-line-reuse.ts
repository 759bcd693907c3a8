/**
 * An unchanged entry's manifest line, written again without encoding it again (performance issue 30). An entry's line
 * ends with its two offsets (`...,"local_header_offset":N,"central_offset":M}`), the only fields a sync moves for every
 * entry after a changed one. Reading a manifest notes, for each line of that shape, its text up to the offsets (a
 * substring of the text read: no copy); a sync grants the reuse of a record's text only where it set nothing but the
 * offsets (written-item.ts, placed); the next write of that record is the text noted and the new numbers.
 *
 * A record is found by its index among the lines read, and must be that very object: a copy, a record of another
 * read, or one at another index is encoded whole, and so is one whose `extracted` is not the one read. A line written
 * from a stale text would silently describe another entry.
 *
 * Plain arrays by line, not a WeakMap of records: a one-file sync runs this once, before the runtime compiles it, and
 * 2,500 WeakMap entries cost it ~1.5 ms more than JSON.stringify saved.
 */

/** What this file reads of an entry record (manifest.ts's EntryRecord, which imports this file). */
export interface EntryLineRecord {
  index: number;
  extracted?: object;
  local_header_offset: number;
  central_offset: number;
}

/** What one read of a manifest noted, by entry: record `k` is the one on line k + 2, whose index is k. */
interface LinesRead {
  records: readonly unknown[];
  /** Its text before the offsets; undefined where the line is of another shape, or its index is not `k`. */
  prefixes: (string | undefined)[];
  /** The stat it was read with. */
  extracted: (object | undefined)[];
  /** 1 where a sync granted its reuse (grantLineReuse), until a write spends it. */
  granted: Uint8Array;
}

const OFFSETS_KEY = ',"local_header_offset":';
/** A line's offsets and its end, tested (sticky) where the offsets begin: the match must end where the line does. */
const OFFSETS_END = /,"local_header_offset":\d{1,16},"central_offset":\d{1,16}\}/y;
const OPEN_BRACE = 0x7b;

/**
 * The reads noted, newest last: held weakly, and strongly by the entries array each was read into (a symbol property
 * of that array), so a read lives as long as the manifest it was read into and no longer.
 */
let reads: WeakRef<LinesRead>[] = [];
const READ = Symbol('lines read');

/**
 * Notes each entry line of `text`, the manifest `entries` were parsed from (the session's line first, then entry k on
 * line k + 2; checked records). Only when every line begins a record and there are as many lines as records: then
 * the lines are the records (a line holding two records, or none, would shift them).
 */
export function noteEntryLines(text: string, entries: readonly EntryLineRecord[]): void {
  const count = entries.length;
  const prefixes = new Array<string | undefined>(count);
  const extracted = new Array<object | undefined>(count);
  let start = text.indexOf('\n') + 1;
  if (start === 0 || text.charCodeAt(0) !== OPEN_BRACE) return;
  let k = 0;
  for (; start < text.length; k++) {
    if (k >= count || text.charCodeAt(start) !== OPEN_BRACE) return;
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const record = entries[k]!;
    extracted[k] = record.extracted;
    // Every entry line names its offsets: one that does not ends the noting, before a search runs back through others.
    const at = text.lastIndexOf(OFFSETS_KEY, end);
    if (at < start) return;
    OFFSETS_END.lastIndex = at;
    if (record.index === k && OFFSETS_END.test(text) && OFFSETS_END.lastIndex === end)
      prefixes[k] = text.slice(start, at);
    start = end + 1;
  }
  if (k !== count) return;
  const read: LinesRead = { records: entries, prefixes, extracted, granted: new Uint8Array(count) };
  Object.defineProperty(entries, READ, { value: read });
  reads = reads.filter((other) => other.deref() !== undefined);
  reads.push(new WeakRef(read));
}

/** The read `record` came from, and its place in it; undefined when it is not one noted there, as it was. */
function readOf(record: EntryLineRecord): LinesRead | undefined {
  const k = record.index;
  for (let i = reads.length - 1; i >= 0; i--) {
    const read = reads[i]!.deref();
    if (read !== undefined && read.records[k] === record) return read;
  }
  return undefined;
}

/**
 * Grants the next manifest write the line read for `record`: called where a sync set nothing of it but its offsets
 * (written-item.ts, placed). A record read from no line of that shape gets nothing.
 */
export function grantLineReuse(record: EntryLineRecord): void {
  const read = readOf(record);
  if (read !== undefined) read.granted[record.index] = 1;
}

/** What writeManifest needs: the reads noted now, looked up once for all its lines. */
export interface LineReuse {
  /**
   * The text to write for `record` before its offsets, when its reuse was granted and it still has the `extracted` it
   * was read with (the grant is spent); undefined: encode it whole.
   */
  prefix(record: EntryLineRecord): string | undefined;
  /** `record`'s line encoded whole, its offsets last (entryLine). */
  line(record: EntryLineRecord): string;
}

export function lineReuse(): LineReuse {
  const live: LinesRead[] = [];
  for (const ref of reads) {
    const read = ref.deref();
    if (read !== undefined) live.push(read);
  }
  const find = (record: EntryLineRecord) => {
    for (let i = live.length - 1; i >= 0; i--) if (live[i]!.records[record.index] === record) return live[i];
    return undefined;
  };
  return {
    prefix(record) {
      if (live.length === 0) return undefined;
      const read = find(record);
      const k = record.index;
      if (read === undefined || read.granted[k] !== 1) return undefined;
      read.granted[k] = 0;
      if (read.extracted[k] !== record.extracted) return undefined;
      if (!isOffset(record.local_header_offset) || !isOffset(record.central_offset)) return undefined;
      return read.prefixes[k];
    },
    line(record) {
      const read = live.length === 0 ? undefined : find(record);
      return entryLine(record, read);
    },
  };
}

function isOffset(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

/**
 * The JSON text of `record`'s line, encoded whole. A record read from a line has that line's field order, plus any
 * field set since after its offsets: unless it was read with its offsets last and no stat was set since where it had
 * none, its other fields are put first, in that order, and the offsets last. (A record made by entryRecord or
 * movedRecord already is in that order.)
 */
function entryLine(record: EntryLineRecord, read: LinesRead | undefined): string {
  const k = record.index;
  if (read === undefined) return JSON.stringify(record);
  if (read.prefixes[k] !== undefined && (read.extracted[k] !== undefined || record.extracted === undefined))
    return JSON.stringify(record);
  const inOrder: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record))
    if (key !== 'local_header_offset' && key !== 'central_offset') inOrder[key] = value;
  inOrder.local_header_offset = record.local_header_offset;
  inOrder.central_offset = record.central_offset;
  return JSON.stringify(inOrder);
}

const TAIL_LOCAL = Buffer.from(OFFSETS_KEY, 'latin1');
const TAIL_CENTRAL = Buffer.from(',"central_offset":', 'latin1');
/** Bytes putOffsetsTail writes at most. */
export const TAIL_ROOM = TAIL_LOCAL.length + TAIL_CENTRAL.length + 2 * 16 + 2;

/**
 * Writes the end of a reused line after its prefix into `into` at `at` (the offsets, `}` and the newline). No string:
 * 2,500 of them took a one-file sync past the runtime's 8 MB allocation budget, into a garbage collection.
 */
export function putOffsetsTail(into: Buffer, at: number, record: EntryLineRecord): number {
  into.set(TAIL_LOCAL, at);
  let used = putNumber(into, at + TAIL_LOCAL.length, record.local_header_offset);
  into.set(TAIL_CENTRAL, used);
  used = putNumber(into, used + TAIL_CENTRAL.length, record.central_offset);
  into[used] = 0x7d;
  into[used + 1] = 0x0a;
  return used + 2;
}

/** A safe integer's decimal digits. */
function putNumber(into: Buffer, at: number, value: number): number {
  let end = at + 1;
  for (let bound = 10; value >= bound && end - at < 16; bound *= 10) end++;
  let rest = value;
  for (let i = end - 1; i >= at; i--) {
    const next = Math.floor(rest / 10);
    into[i] = 0x30 + (rest - next * 10);
    rest = next;
  }
  return end;
}
