/**
 * Shape checks for manifest records. A manifest is written only by zipfs, but
 * it lives on disk where editors, full disks and other zipfs versions reach
 * it: a record of the wrong shape must become a clear SESSION_DAMAGED, never
 * a TypeError deep inside status or sync.
 */
import { CODE_PAGES, type CodePage } from '../zip/index.ts';

type Kind = 'string' | 'number' | 'number|null' | 'string[]' | 'object';

const SESSION_FIELDS: Record<string, Kind> = {
  id: 'string',
  name: 'string',
  source_path: 'string',
  source: 'object',
  created_at: 'string',
  file_count: 'number',
  dir_count: 'number',
  extracted_size_bytes: 'number',
  symlinks: 'string[]',
};

const SOURCE_FIELDS: Record<string, Kind> = { size: 'number', mtime_ms: 'number', directory_sha256: 'string' };

const ENTRY_FIELDS: Record<string, Kind> = {
  index: 'number',
  name: 'string',
  path: 'string',
  size: 'number',
  compressed_size: 'number',
  crc32: 'number',
  method: 'number',
  flags: 'number',
  dos_time: 'number',
  dos_date: 'number',
  mtime_ms: 'number',
  mode: 'number|null',
  external_attributes: 'number',
  local_header_offset: 'number',
  central_offset: 'number',
};

const ENTRY_TYPES = new Set(['file', 'dir', 'symlink']);
/** The fields entryFieldsSound checks, in ENTRY_FIELDS's order. */
const SOUND_KEYS =
  'index,name,path,size,compressed_size,crc32,method,flags,dos_time,dos_date,mtime_ms,mode,external_attributes,' +
  'local_header_offset,central_offset';

function fits(value: unknown, kind: Kind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'number|null':
      return value === null || (typeof value === 'number' && Number.isFinite(value));
    case 'string[]':
      return Array.isArray(value) && value.every((item) => typeof item === 'string');
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
  }
}

/** Field lists as arrays, built once: status reads every entry record, and
 * Object.entries per record cost as much as parsing the JSON itself. */
type Fields = ReadonlyArray<readonly [string, Kind]>;
const fieldList = (fields: Record<string, Kind>): Fields => Object.entries(fields);
const SESSION_LIST = fieldList(SESSION_FIELDS);
const SOURCE_LIST = fieldList(SOURCE_FIELDS);
const ENTRY_LIST = fieldList(ENTRY_FIELDS);
/** A lazy session's facts about its central.bin (lazy-entries.ts). */
const LAZY_LIST = fieldList({ entries: 'number', base_offset: 'number', central_start: 'number' });

function fieldProblem(record: Record<string, unknown>, fields: Fields, prefix = ''): string | undefined {
  for (let i = 0; i < fields.length; i++) {
    const [key, kind] = fields[i]!;
    if (!fits(record[key], kind))
      return `field "${prefix}${key}" is ${record[key] === undefined ? 'missing' : `not a ${kind}`}`;
  }
  return undefined;
}

/**
 * A lazy record's fields: its entry count a count, and central.bin's length and CRC-32 (absent in older sessions)
 * numbers.
 */
function lazyProblem(lazy: Record<string, unknown>): string | undefined {
  const problem = fieldProblem(lazy, LAZY_LIST, 'lazy.');
  if (problem) return problem;
  if (!Number.isInteger(lazy.entries) || (lazy.entries as number) < 0) return 'field "lazy.entries" is not a count';
  for (const key of ['central_bytes', 'central_crc32'])
    if (lazy[key] !== undefined && !fits(lazy[key], 'number')) return `field "lazy.${key}" is not a number`;
  return undefined;
}

/** What is wrong with a session record (line 1), or undefined when it is usable. */
export function sessionRecordProblem(value: unknown, format: number): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is not a JSON object';
  const record = value as Record<string, unknown>;
  if (record.kind !== 'session') return 'it is not a session record';
  if (record.format !== format)
    return (
      `it was written by another zipfs version (manifest format ${JSON.stringify(record.format)}; this zipfs ` +
      `reads format ${format})`
    );
  const lazy =
    record.lazy === undefined
      ? undefined
      : fits(record.lazy, 'object')
        ? lazyProblem(record.lazy as Record<string, unknown>)
        : 'field "lazy" is not a object';
  const encoding =
    record.name_encoding === undefined || CODE_PAGES.includes(record.name_encoding as CodePage)
      ? undefined
      : 'field "name_encoding" is not an encoding this zipfs knows';
  return (
    fieldProblem(record, SESSION_LIST) ??
    fieldProblem(record.source as Record<string, unknown>, SOURCE_LIST, 'source.') ??
    lazy ??
    encoding
  );
}

/** What is wrong with an entry record, or undefined when it is usable. */
export function entryRecordProblem(value: unknown): string | undefined {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return 'it is not a JSON object';
  const record = value as Record<string, unknown>;
  if (record.kind !== 'entry') return 'it is not an entry record';
  if (!ENTRY_TYPES.has(record.type as string)) return 'field "type" is not file, dir or symlink';
  return entryFieldsSound(record) ? undefined : fieldProblem(record, ENTRY_LIST);
}

const finite = Number.isFinite;

/**
 * ENTRY_FIELDS checked in one expression: status reads every entry record, and the loop over the field list cost
 * ~0.4 us a record (5 ms at 12,500). True only when fieldProblem finds nothing; it names what is wrong otherwise.
 */
function entryFieldsSound(r: Record<string, unknown>): boolean {
  return (
    finite(r.index) &&
    typeof r.name === 'string' &&
    typeof r.path === 'string' &&
    finite(r.size) &&
    finite(r.compressed_size) &&
    finite(r.crc32) &&
    finite(r.method) &&
    finite(r.flags) &&
    finite(r.dos_time) &&
    finite(r.dos_date) &&
    finite(r.mtime_ms) &&
    (r.mode === null || finite(r.mode)) &&
    finite(r.external_attributes) &&
    finite(r.local_header_offset) &&
    finite(r.central_offset)
  );
}
// The expression above lists ENTRY_FIELDS by hand: a field added there and not here would pass unchecked.
if (ENTRY_LIST.map(([key]) => key).join() !== SOUND_KEYS)
  throw new Error('manifest-check.ts: entryFieldsSound does not list the fields of ENTRY_FIELDS');
