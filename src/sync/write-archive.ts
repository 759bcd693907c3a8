/**
 * The new archive of a sync, written beside the zip it replaces: unchanged
 * entries copied as their original bytes with their directory records (only
 * the offset moved), modified ones written where they stood, the untouched
 * ones (never extracted) copied raw between them, additions appended in path
 * order; and the manifest that describes it.
 */
import fs from 'node:fs';
import { FileSource, ZipWriter, readPackedDirectory } from '../zip/index.ts';
import type { EntryRecord, SessionRecord } from '../session/manifest.ts';
import type { ManifestLines } from '../session/manifest.ts';
import type { Progress } from '../base/progress.ts';
import { Beneath } from '../files/beneath.ts';
import { eventLoopTurns } from '../base/event-loop-turns.ts';
import type { Base } from '../workspace/base.ts';
import { writeFromWorkspace, type Captured } from './sync-entries.ts';
import { againstReplaced, findOriginal, originalInPlace } from './source-match.ts';
import { LEFT_IN_ZIP, entryCounts, nextEntries, type WrittenItem } from './written-item.ts';
import type { MergePlan, Step } from './merge-plan.ts';
import type { MergeSides } from './merge-sides.ts';
import { CopyCheck } from './copy-check.ts';
import { copyRun, inPlaceRun, type RunContext } from './copy-runs.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';
import { sealsAdditions } from './seal-entry.ts';
import { flushInBackground } from './sync-files.ts';
import { writeAdditions } from './write-additions.ts';
import type { SyncCounts } from './sync-types.ts';
import { phase } from '../base/phase-trace.ts';
import type { ServerCopies } from '../remote/server-copies.ts';

export interface WriteRequest {
  /** The new archive's file, beside `target`. */
  temporary: string;
  /** The zip it replaces (its real path). */
  target: string;
  sourceExists: boolean;
  base: Base;
  /** The base's entries the scan compared (the others are untouched). */
  entries: EntryRecord[];
  diff: WorkspaceDiff;
  /** The workspace folder. */
  root: string;
  plan?: MergePlan;
  /** Forced over a zip another writer changed. */
  forced: boolean;
  progress?: Progress;
  signal?: AbortSignal;
  tracked?: MergeSides['tracked'];
  /** A remote S3 session's sync: raw copies the mirror lacks are left holes, copied on the server. */
  copies?: ServerCopies;
}

export interface Written {
  next: ManifestLines;
  /** Additions that were gone when their turn came. */
  gone: number;
  /** Entries written, and where the pieces the read-back check reads begin (ZipWriter.pieceStarts). */
  total: number;
  pieceStarts: number[];
  /** The archive's flush, begun once it was complete (sync-files.ts flushInBackground). */
  flushed: Promise<void>;
  /** A forced sync's counts against the zip it replaced. */
  replaced?: SyncCounts;
}

/**
 * Writes the new archive to `temporary`, its flush begun, and returns the manifest
 * that describes it: built from what was written (records of copied entries
 * as parsed from the source, fresh ones parsed from the bytes just encoded),
 * with the stat of each workspace file it was written from, so the next
 * status is clean without reading the archive back.
 */
export async function writeArchive(request: WriteRequest): Promise<Written> {
  const { temporary, target, sourceExists, base, entries: baseEntries, diff, root, plan, forced } = request;
  const { progress, signal, tracked } = request;
  let gone = 0;
  const mode = sourceExists ? fs.statSync(target).mode & 0o7777 : 0o644;
  const fd = fs.openSync(temporary, 'wx', mode);
  const source = sourceExists ? new FileSource(target) : undefined;
  const sourceFd = source?.fd; // raw copies come from the file the directory was read from
  // Rewritten entries' local extra fields, a few bytes each: through a small window, not 4 MiB of read-ahead.
  const extras = source?.sharing(64 << 10);
  const captured: Captured = new Map();
  let flushed: Promise<void> | undefined;
  let beneath: Beneath | undefined;
  try {
    beneath = new Beneath(root);
    fs.fchmodSync(fd, mode); // the umask must not narrow the archive's permissions
    // Packed: a source of a million entries costs its directory's bytes, not an object per entry.
    let directory = source ? readPackedDirectory(source, base.record.name_encoding) : undefined;
    const writer = new ZipWriter(fd, directory?.baseOffset ?? 0, request.copies);
    if (directory) writer.reserveDirectory(directory.centralEnd - directory.centralStart + (64 << 10));
    const ends = directory ? directory.rawEnds() : new Float64Array(0);
    const first = directory?.count ? directory.localHeaderOffset(directory.byOffset()[0]!) : Number.POSITIVE_INFINITY;
    const firstLocal = directory ? Math.min(first, directory.centralStart) : 0;
    if (sourceFd !== undefined && firstLocal > 0) writer.copyRange(sourceFd, 0, firstLocal); // a prefix stub stays
    let names: Map<string, number> | undefined;
    const byName = () => {
      if (names) return names;
      names = new Map();
      for (let i = 0; i < directory!.count; i++) names.set(directory!.entry(i).name, i);
      return names;
    };
    // Progress in bytes written: about the source's size plus what the workspace adds or changes.
    let changedBytes = 0;
    for (const relative of [...diff.modified, ...diff.added]) changedBytes += diff.observed.get(relative)?.size ?? 0;
    const total = (source?.size ?? 0) + changedBytes;
    // Progress notifications and a cancel get through during a long sync.
    const pause = eventLoopTurns(signal);
    // Where fresh entries go; an encrypted archive's additions are written encrypted (seal-entry.ts).
    const sealed = sealsAdditions(directory, diff.added.length > 0);
    const sink = { writer, beneath: beneath!, captured, pause, sealed };
    const step = (label: string) => {
      progress?.(Math.min(writer.size, total), total, label);
      return pause();
    };
    // Raw copies of bytes this session never checked are checked first: a damaged entry is refused, not copied.
    const check =
      directory &&
      new CopyCheck(source!, directory, {
        checked: base.copiesChecked,
        otherWriter: plan !== undefined || forced,
        fd: sourceFd!,
        pause,
        checkedAlready: plan?.dataChecked,
        serverCopies: request.copies,
      });

    // What each entry of the new archive is, in its order: a copied entry (its record from the source) or a fresh one.
    const written: WrittenItem[] = [];
    // The entries in their new order: the base's (a plain sync), or the merge's (the zip's order, merge-plan.ts).
    // The untouched entries (never extracted: workspace/base.ts): unchanged, copied raw from the base, which the
    // source still is (checkSource). By index, between the compared records, with no object per entry: there may be a
    // million.
    let untouchedNext = 0;
    const copyUntouchedUpTo = async (end: number) => {
      for (; untouchedNext < end; untouchedNext++) {
        const checking = check!.beforeCopy(untouchedNext);
        if (checking) await checking;
        const at = writer.size;
        writer.copyRange(sourceFd!, directory!.localHeaderOffset(untouchedNext), ends[untouchedNext]!);
        writer.addCopiedRecordFrom(
          directory!.region,
          directory!.recordStart(untouchedNext),
          directory!.recordLength(untouchedNext),
          at,
        );
        written.push(LEFT_IN_ZIP);
        if ((untouchedNext & 0xffff) === 0xffff) await step('');
      }
    };
    // A merge's plan lists the whole base; a plain sync copies the untouched entries between the compared ones.
    const untouched = !plan && baseEntries.length < base.count;
    // The source is the base (checkSource matched its directory's hash): each record describes its entry as it is.
    const sameDirectory = directory !== undefined && sourceFd !== undefined && !plan && !forced;
    const steps: Step[] = plan?.steps ?? baseEntries.map((record) => ({ kind: 'base', record }));
    // A plain sync copies its unchanged entries in runs (copy-runs.ts); steps[s] is then baseEntries[s].
    const runs: RunContext | undefined = sameDirectory
      ? { directory: directory!, ends, states: diff.states, check: check!, writer, sourceFd: sourceFd! }
      : undefined;
    for (let s = 0; s < steps.length; s++) {
      const item = steps[s]!;
      const run = runs ? inPlaceRun(baseEntries, s, runs) : 0;
      if (run > 0) {
        const first = baseEntries[s]!.index;
        if (untouched) await copyUntouchedUpTo(first);
        untouchedNext = first + run;
        copyRun(baseEntries, s, run, runs!, written);
        s += run - 1;
        const turn = step(baseEntries[s]!.path);
        if (turn) await turn;
        continue;
      }
      if (untouched && item.kind === 'base') {
        await copyUntouchedUpTo(item.record.index);
        untouchedNext = item.record.index + 1;
      }
      if (item.kind === 'zip') {
        // The zip's side of a merge: its entry as it is now, copied raw.
        await check!.beforeCopy(item.entry.index);
        const at = writer.size;
        writer.copyRange(sourceFd!, item.entry.localHeaderOffset, ends[item.entry.index]!);
        writer.addCopiedRecord(source!.read(item.entry.centralOffset, item.entry.centralLength), at);
        written.push(
          tracked && !tracked.paths.has(item.path)
            ? LEFT_IN_ZIP
            : { path: item.path, type: item.type, copied: item.entry, at, fromZip: true },
        );
        await step(item.path);
        continue;
      }
      const { record } = item;
      const state = diff.states.get(record.index);
      if (state === 'deleted') {
        await step(record.path);
        continue;
      }
      // Over the zip the manifest describes, an unchanged entry is matched in place, its record kept: none parsed.
      const inPlace = state === 'unchanged' && sameDirectory ? originalInPlace(directory!, record) : undefined;
      if (inPlace !== undefined) {
        const checking = check!.beforeCopy(inPlace, record);
        if (checking) await checking;
        const at = writer.size;
        writer.copyRange(sourceFd!, directory!.localHeaderOffset(inPlace), ends[inPlace]!);
        const start = directory!.recordStart(inPlace);
        writer.addCopiedRecordFrom(directory!.region, start, directory!.recordLength(inPlace), at);
        written.push(
          tracked && !tracked.indexes.has(record.index)
            ? LEFT_IN_ZIP
            : { path: record.path, type: record.type, kept: record, at },
        );
        const turn = step(record.path);
        if (turn) await turn;
        continue;
      }
      const original = directory ? findOriginal(directory, byName, record) : undefined;
      if (state === 'unchanged' && original && sourceFd !== undefined) {
        const checking = check!.beforeCopy(original.index, record);
        if (checking) await checking;
        const at = writer.size;
        writer.copyRange(sourceFd, original.localHeaderOffset, ends[original.index]!);
        writer.addCopiedRecord(directory!.record(original.index), at); // relocating copies it
        written.push(
          tracked && !tracked.indexes.has(record.index)
            ? LEFT_IN_ZIP
            : { path: record.path, type: record.type, copied: original, at },
        );
      } else {
        // Modified, or renamed (written where it stood, under its new name).
        const renamedTo = diff.renames.get(record.index);
        const central = await writeFromWorkspace(sink, record, {
          original,
          source: extras,
          diff,
          renamedTo,
        });
        written.push({ path: renamedTo ?? record.path, type: record.type, central });
      }
      await step(record.path);
    }
    phase('write: entries');
    if (untouched) await copyUntouchedUpTo(base.count);
    gone += await writeAdditions(sink, diff, { skip: plan?.sameAdditions, written, step });
    const end = writer.finish(directory?.commentBytes ?? new Uint8Array(0), directory?.zip64 ?? false);
    progress?.(total, total, 'done');
    phase('write: directory');
    // The descriptor is the flush's from here: it closes it once the data is on disk.
    flushed = flushInBackground(fd);
    flushed.catch(() => undefined); // waited for by the caller

    const entries = nextEntries(written, {
      centralOffsets: end.centralOffsets,
      base: writer.base,
      nameEncoding: base.record.name_encoding,
      observed: (relative) => captured.get(relative) ?? diff.observed.get(relative),
    });
    // The new archive against the zip it replaces, by name: after a forced sync over a zip another
    // writer changed, these are the counts that say what it kept of the workspace and what it discarded.
    const replaced =
      directory && forced
        ? againstReplaced(
            directory,
            entries,
            new Set(
              baseEntries.filter((entry) => diff.states.get(entry.index) === 'renamed').map((entry) => entry.name),
            ),
          )
        : undefined;
    // The source's parsed directory is ~0.5 KB per entry, and the runtime keeps an async function's
    // locals for a while after it returns: let go of it here (50 MiB at 100,000 entries).
    directory = undefined;
    names = undefined;
    const session: SessionRecord = {
      ...base.record,
      source: { size: end.size, mtime_ms: fs.fstatSync(fd).mtimeMs, directory_sha256: end.directorySha256 },
      ...entryCounts(entries),
    };
    return {
      next: { session, entries },
      gone,
      replaced,
      total: written.length,
      pieceStarts: writer.pieceStarts,
      flushed,
    };
  } catch (error) {
    await flushed?.catch(() => undefined); // the descriptor closed before the caller removes the file (Windows)
    throw error;
  } finally {
    beneath?.close();
    if (!flushed) fs.closeSync(fd);
    source?.close();
  }
}
