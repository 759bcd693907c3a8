/**
 * A text entry both sides modified, merged by lines (DESIGN.md, "Merges"; files/merge-lines.ts):
 * the base's bytes from the session's base zip (session/base-archive.ts), the zip's from the zip
 * now, the workspace's from its file. What cannot merge by lines conflicts whole, with the reason:
 * a link or binary content (a NUL in the first 8,000 bytes, or not UTF-8), a side over
 * LINE_MERGE_MAX_BYTES, or no base to merge from (none kept, or the zip was written in place).
 * A file a merge marked (session/merge-state.ts) and that holds no markers any more is the
 * resolution: taken whole while the zip's entry is still the one it was merged with.
 */
import fs from 'node:fs';
import { openRegularFile } from '../base/regular-file.ts';
import type { Beneath } from '../files/beneath.ts';
import { mergeLines, type LineConflict } from '../files/merge-lines.ts';
import { looksBinary } from '../files/text-or-binary.ts';
import type { Limits } from '../rules/limits.ts';
import { BaseArchive } from '../session/base-archive.ts';
import type { EntryRecord, SessionRecord } from '../session/manifest.ts';
import { readMergeState, type MergeState, type MergedWith } from '../session/merge-state.ts';
import { FileSource, readEntryData } from '../zip/index.ts';
import type { PlacedEntry } from './zip-changes.ts';

/** The largest side merged by lines: a diff of larger texts costs seconds, and their conflicts are not for reading. */
export const LINE_MERGE_MAX_BYTES = 8 << 20;

export type LineOutcome =
  /** Merged cleanly: `text` goes into the workspace file and the new archive. */
  | { kind: 'merged'; text: string }
  /** A file an earlier merge marked, its markers resolved: the workspace's file, whole. */
  | { kind: 'resolved' }
  /** Changes to the same lines: `text` holds git's markers, to be written into the workspace file. */
  | { kind: 'conflict'; text: string; lines: LineConflict[]; mergedWith: MergedWith }
  /** Not merged by lines: a whole-entry conflict, and why. */
  | { kind: 'whole'; reason: string };

export interface LineMergeContext {
  session: { dir: string; record: SessionRecord };
  zipPath: string;
  limits: Limits;
  beneath: Beneath;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

/** `bytes` as text, or undefined when binary (a NUL early on, as git decides) or not UTF-8. */
function asText(bytes: Uint8Array): string | undefined {
  if (looksBinary(bytes)) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Merges entries by lines, reading the base and the zip once each; close() lets them go. */
export class LineMerger {
  private base: BaseArchive | null | undefined; // null: looked for, none usable
  private zip: FileSource | undefined;
  private readonly state: MergeState;

  constructor(private readonly context: LineMergeContext) {
    this.state = readMergeState(context.session.dir);
  }

  merge(record: EntryRecord, placed: PlacedEntry): LineOutcome {
    if (record.type !== 'file' || placed.type !== 'file') return { kind: 'whole', reason: 'a link' };
    const { entry } = placed;
    const marked = this.state[record.path];
    if (marked && marked.crc32 === entry.crc32 && marked.size === entry.uncompressedSize) return { kind: 'resolved' };
    const workspace = this.readWorkspace(record.path);
    if (workspace === 'large' || record.size > LINE_MERGE_MAX_BYTES || entry.uncompressedSize > LINE_MERGE_MAX_BYTES)
      return { kind: 'whole', reason: `over ${LINE_MERGE_MAX_BYTES >> 20} MiB` };
    if (workspace === undefined) return { kind: 'whole', reason: 'its file could not be read' };
    const base = this.baseArchive();
    if (!base) return { kind: 'whole', reason: 'no base to merge lines from' };
    let baseBytes: Uint8Array;
    try {
      baseBytes = base.read(record);
    } catch {
      return { kind: 'whole', reason: 'its base could not be read' }; // damaged, or over open's limits
    }
    const [baseText, zipText, ours] = [baseBytes, this.zipNow().read(entry), workspace].map(asText);
    if (baseText === undefined || zipText === undefined || ours === undefined)
      return { kind: 'whole', reason: 'binary' };
    const merged = mergeLines(baseText, ours, zipText);
    if (merged.conflicts.length === 0) return { kind: 'merged', text: merged.text };
    return {
      kind: 'conflict',
      text: merged.text,
      lines: merged.conflicts,
      mergedWith: { crc32: entry.crc32, size: entry.uncompressedSize },
    };
  }

  close(): void {
    this.base?.close();
    this.zip?.close();
  }

  private baseArchive(): BaseArchive | undefined {
    if (this.base === undefined) this.base = BaseArchive.open(this.context.session, this.context.limits) ?? null;
    return this.base ?? undefined;
  }

  private zipNow(): { read(entry: PlacedEntry['entry']): Uint8Array } {
    const source = (this.zip ??= new FileSource(this.context.zipPath));
    return { read: (entry) => readEntryData(source, entry).slice() };
  }

  /** The workspace file's bytes; 'large' past the bound; undefined when it cannot be read. */
  private readWorkspace(relative: string): Uint8Array | 'large' | undefined {
    const { beneath } = this.context;
    let opened: { fd: number; stats: fs.Stats };
    try {
      beneath.keepFoldersOf(relative);
      opened = openRegularFile(beneath.place(relative).path, relative);
    } catch {
      return undefined;
    }
    try {
      if (opened.stats.size > LINE_MERGE_MAX_BYTES) return 'large';
      return new Uint8Array(fs.readFileSync(opened.fd));
    } finally {
      fs.closeSync(opened.fd);
    }
  }
}
