/**
 * Reading manifest.jsonl whole (manifest.ts writes it and reads its first line alone): every line parsed and checked,
 * so a damaged manifest is SESSION_DAMAGED naming the line, never a crash later.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isSystemError } from '../base/errors.ts';
import { releasePhaseGarbage } from '../base/memory.ts';
import { entryRecordProblem, sessionRecordProblem } from './manifest-check.ts';
import {
  MANIFEST_FORMAT,
  sessionDamaged,
  type EntryRecord,
  type LazyFacts,
  type ManifestLines,
  type SessionRecord,
} from './manifest.ts';

/**
 * Parses all records with one JSON.parse call (the lines joined into an array):
 * several times faster than one call per line on manifests of tens of thousands
 * of entries. Only when that fails are lines parsed one by one, to say which is
 * damaged. Blank lines are skipped, as JSON Lines readers do.
 */
/**
 * The manifest's lines: the session record and the entries it lists (a lazy session's in index order); with `stamp`,
 * also the stamp of the text read, for a stat index of it (stat-index.ts).
 */
export function readManifestLines(manifestPath: string, options: { stamp?: boolean } = {}): ManifestLines {
  let text: string;
  try {
    // Read as text at once: decoding a Buffer read first costs as much again (5 MB: ~4 ms more).
    text = fs.readFileSync(manifestPath, 'utf8');
  } catch (error) {
    if (isSystemError(error, 'ENOENT'))
      throw sessionDamaged(path.dirname(manifestPath), 'its manifest.jsonl is missing');
    if (isSystemError(error, 'EISDIR'))
      throw sessionDamaged(path.dirname(manifestPath), 'its manifest.jsonl is a folder');
    throw error;
  }
  // The text parsed here, whatever the file holds by now; Bun hashes a string as its UTF-8 bytes, as written.
  const stamp = options.stamp ? { size: Buffer.byteLength(text), crc32: Bun.hash.crc32(text) } : undefined;
  let records: unknown[];
  // Bun's JSON Lines parser, taken only when it read the whole text without a fault (a cut or doubled line stops
  // it): a third faster than one JSON.parse of the lines joined (12,500 entries: ~6.5 against ~10 ms).
  const lines = Bun.JSONL.parseChunk(text);
  if (lines.done && lines.error === null) records = lines.values;
  else
    try {
      records = JSON.parse(`[${text.trimEnd().replaceAll('\n', ',')}]`) as unknown[];
    } catch {
      records = parseLineByLine(manifestPath, text);
    }
  if (records.length === 0) throw sessionDamaged(path.dirname(manifestPath), 'its manifest.jsonl is empty');
  const first = records[0];
  const sessionProblem = sessionRecordProblem(first, MANIFEST_FORMAT);
  if (sessionProblem)
    throw sessionDamaged(path.dirname(manifestPath), `line 1 of its manifest.jsonl: ${sessionProblem}`);
  const entries = records.slice(1);
  for (let i = 0; i < entries.length; i++) {
    const problem = entryRecordProblem(entries[i]);
    // Line numbers count blank lines only on the slow path; on the fast one there are none.
    if (problem)
      throw sessionDamaged(
        path.dirname(manifestPath),
        `entry record ${i + 1} (line ${i + 2}) of its manifest.jsonl: ${problem}`,
      );
  }
  text = '';
  releasePhaseGarbage(entries.length); // the text, and the array it was joined into
  const session = first as SessionRecord;
  if (!session.lazy) return { session, entries: entries as EntryRecord[], ...(stamp ? { stamp } : {}) };
  // Extractions append in their own order: the rest of zipfs reads entries in index order.
  const tracked = (entries as EntryRecord[]).sort((a, b) => a.index - b.index);
  assertTrackedIndexes(path.dirname(manifestPath), session.lazy, tracked);
  return { session, entries: tracked, ...(stamp ? { stamp } : {}) };
}

/**
 * Every line of a lazy session's manifest names an entry of the directory, once: cheap checks on
 * the lines alone, before anything loops over or indexes by them (lazy-integrity.ts checks them
 * against the directory when it is loaded).
 */
function assertTrackedIndexes(dir: string, facts: LazyFacts, sorted: EntryRecord[]): void {
  for (let i = 0; i < sorted.length; i++) {
    const { index } = sorted[i]!;
    if (!Number.isInteger(index) || index < 0 || index >= facts.entries) {
      throw sessionDamaged(
        dir,
        `its manifest.jsonl lists entry index ${index}, but the session's directory has ${facts.entries} entries`,
      );
    }
    if (i > 0 && sorted[i - 1]!.index === index)
      throw sessionDamaged(dir, `its manifest.jsonl lists entry index ${index} twice`);
  }
}

function parseLineByLine(manifestPath: string, text: string): unknown[] {
  const records: unknown[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue;
    try {
      records.push(JSON.parse(lines[i]!));
    } catch {
      const cut = i === lines.length - 1 && !text.endsWith('\n') ? ' (cut off: the file ends inside it)' : '';
      throw sessionDamaged(path.dirname(manifestPath), `line ${i + 1} of its manifest.jsonl is not valid JSON${cut}`);
    }
  }
  return records;
}
