/**
 * An unchanged entry's manifest line, written again without encoding it again (performance issue 30). An entry's line
 * ends with its two offsets (`...,"local_header_offset":N,"central_offset":M}`), the only fields a sync moves for every
 * entry after a changed one. Reading a manifest notes, for each line of that shape, its text up to the offsets (a
 * substring of the text read: no copy); a sync grants the reuse of a record's text only where it set nothing but the
 * offsets (written-item.ts, placed); the next write of that record is the text noted and the new numbers.
 *
 * A record read but not granted, or whose `extracted` or index is no longer the one read, is encoded again whole: a
 * line written from a stale text would silently describe another entry.
 */

/** What this file reads of an entry record (manifest.ts's EntryRecord, which imports this file). */
export interface EntryLineRecord {
  index: number;
  extracted?: object;
  local_header_offset: number;
  central_offset: number;
}

/**
 * What reading noted of a record's line: its text up to the offsets (undefined: the line is of another shape), and
 * what placed may not have changed.
 */
interface LineRead {
  prefix: string | undefined;
  index: number;
  extracted: object | undefined;
}

const OFFSETS_KEY = ',"local_header_offset":';
const CENTRAL_KEY = ',"central_offset":';
const OFFSETS_KEY_BYTES = Buffer.from(OFFSETS_KEY, 'latin1');
const CENTRAL_KEY_BYTES = Buffer.from(CENTRAL_KEY, 'latin1');
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const NEWLINE = 0x0a;
const DIGIT_0 = 0x30;

const linesRead = new WeakMap<EntryLineRecord, LineRead>();
const granted = new WeakSet<EntryLineRecord>();

/**
 * Notes each entry's line of `text`, the manifest `records` were parsed from (the session's first). Only when every
 * line begins a record and there are as many lines as records: then line k is record k (a line holding two records, or
 * none, would shift them).
 */
export function noteEntryLines(text: string, records: readonly unknown[]): void {
  const prefixes = new Array<string | undefined>(records.length);
  let start = 0;
  let k = 0;
  while (start < text.length) {
    if (k >= records.length || text.charCodeAt(start) !== OPEN_BRACE) return;
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    if (k > 0) prefixes[k] = prefixOf(text, start, end, records[k] as EntryLineRecord);
    k++;
    start = end + 1;
  }
  if (k !== records.length) return;
  for (let i = 1; i < k; i++) {
    const record = records[i] as EntryLineRecord;
    linesRead.set(record, { prefix: prefixes[i], index: record.index, extracted: record.extracted });
  }
}

/**
 * The text of line [start, end) before its offsets, when it ends with them as JSON text of `record`'s own offsets;
 * scanned back from the end, so a line of another shape costs a few characters.
 */
function prefixOf(text: string, start: number, end: number, record: EntryLineRecord): string | undefined {
  let at = end - 1;
  if (at <= start || text.charCodeAt(at) !== CLOSE_BRACE) return undefined;
  const central = digitsBefore(text, at, start);
  if (central === undefined || central.value !== record.central_offset) return undefined;
  at = central.from - CENTRAL_KEY.length;
  if (at <= start || !text.startsWith(CENTRAL_KEY, at)) return undefined;
  const local = digitsBefore(text, at, start);
  if (local === undefined || local.value !== record.local_header_offset) return undefined;
  at = local.from - OFFSETS_KEY.length;
  if (at <= start || !text.startsWith(OFFSETS_KEY, at)) return undefined;
  return text.slice(start, at);
}

/** The plain decimal number ending before `end` (at most 15 digits, no leading zero), and where it begins. */
function digitsBefore(text: string, end: number, floor: number): { value: number; from: number } | undefined {
  let from = end;
  let value = 0;
  let scale = 1;
  while (from > floor && end - from < 15) {
    const digit = text.charCodeAt(from - 1) - DIGIT_0;
    if (digit < 0 || digit > 9) break;
    value += digit * scale;
    scale *= 10;
    from--;
  }
  if (from === end || (end - from > 1 && text.charCodeAt(from) === DIGIT_0)) return undefined;
  return { value, from };
}

/**
 * Grants the next manifest write the line read for `record`: called where a sync set nothing of it but its offsets
 * (written-item.ts, placed). A record read from no line of that shape gets nothing. The record is frozen: code that
 * changed it after the grant would throw instead of leaving its line stale.
 */
export function grantLineReuse(record: EntryLineRecord): void {
  if (linesRead.get(record)?.prefix === undefined) return;
  Object.freeze(record);
  if (record.extracted) Object.freeze(record.extracted);
  granted.add(record);
}

/**
 * The text to write for `record` before its offsets, when reuse was granted and the record still has the index and
 * the `extracted` it was read with; the grant is spent. Undefined: encode it whole.
 */
export function reusablePrefix(record: EntryLineRecord): string | undefined {
  if (!granted.delete(record)) return undefined;
  const line = linesRead.get(record);
  if (line?.prefix === undefined || line.index !== record.index || line.extracted !== record.extracted)
    return undefined;
  if (!isOffset(record.local_header_offset) || !isOffset(record.central_offset)) return undefined;
  return line.prefix;
}

function isOffset(value: number): boolean {
  return Number.isSafeInteger(value) && value >= 0;
}

/**
 * The JSON text of `record`'s line, encoded whole. A record read from a line has that line's field order, plus any
 * field set since after its offsets: its other fields are put first, in that order, and the offsets last. (A record
 * made by entryRecord or movedRecord already is in that order.)
 */
export function entryLine(record: EntryLineRecord): string {
  const line = linesRead.get(record);
  // Read with its offsets last, and no stat set since where it had none: still in that order.
  const inLineOrder = line?.prefix !== undefined && (line.extracted !== undefined || record.extracted === undefined);
  if (line === undefined || inLineOrder) return JSON.stringify(record);
  const inOrder: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record))
    if (key !== 'local_header_offset' && key !== 'central_offset') inOrder[key] = value;
  inOrder.local_header_offset = record.local_header_offset;
  inOrder.central_offset = record.central_offset;
  return JSON.stringify(inOrder);
}

/**
 * Writes `record`'s line, `prefix` (reusablePrefix's) and its offsets, and the line's end into `into` at `at`; returns
 * where it ends. `into` has room for prefix.length * 3 + OFFSETS_ROOM bytes.
 */
export function putReusedLine(into: Buffer, at: number, prefix: string, record: EntryLineRecord): number {
  let used = at + into.write(prefix, at, 'utf8');
  into.set(OFFSETS_KEY_BYTES, used);
  used = putDigits(into, used + OFFSETS_KEY_BYTES.length, record.local_header_offset);
  into.set(CENTRAL_KEY_BYTES, used);
  used += CENTRAL_KEY_BYTES.length;
  used = putDigits(into, used, record.central_offset);
  into[used++] = CLOSE_BRACE;
  into[used++] = NEWLINE;
  return used;
}

/** Room beyond the prefix that putReusedLine needs: both keys, two numbers of up to 16 digits, `}` and the newline. */
export const OFFSETS_ROOM = OFFSETS_KEY.length + CENTRAL_KEY.length + 2 * 16 + 2;

function putDigits(into: Buffer, at: number, value: number): number {
  if (value > 0x7fffffff) return at + into.write(String(value), at, 'latin1');
  let digits = 1;
  for (let rest = value; rest >= 10; rest = (rest / 10) | 0) digits++;
  let rest = value;
  for (let i = at + digits - 1; i >= at; i--) {
    const next = (rest / 10) | 0;
    into[i] = DIGIT_0 + rest - next * 10;
    rest = next;
  }
  return at + digits;
}
