/**
 * A merge with nothing of the workspace's own to write (its changes none, or all made by the zip
 * too): the zip is not rewritten. The workspace takes the zip's side (merge-apply.ts), and the
 * session's base becomes the zip as it is: a manifest of its entries (and, for a lazy session, a
 * copy of its directory), and a link to it as the base zip. No backup is made, for nothing is
 * replaced; the answer counts nothing of the workspace's, and lists what came from the zip.
 */
import fs from 'node:fs';
import { foldersOf } from '../rules/item-type.ts';
import { sessionFolderRules } from '../rules/folder-rules.ts';
import { draftNextBase, dropNextBase, placeNextBase } from '../session/base-archive.ts';
import { entryRecord, writeManifest, type EntryRecord, type SessionRecord } from '../session/manifest.ts';
import { clearMergeState } from '../session/merge-state.ts';
import { fingerprintSource } from '../session/source-state.ts';
import type { Base } from '../workspace/base.ts';
import { FileSource, readPackedDirectory } from '../zip/index.ts';
import { eventLoopTurns } from '../base/event-loop-turns.ts';
import { CopyCheck } from './copy-check.ts';
import { directoryCopyPath, nextCentralPath, nextManifestPath } from './interrupted-sync.ts';
import { takeZipSide } from './merge-apply.ts';
import type { MergePlan } from './merge-plan.ts';
import { zipNowRequest, type MergeSides } from './merge-sides.ts';
import type { SyncRequest } from './sync-types.ts';
import { readZipNow } from './zip-now.ts';
import { assertSameZip } from './zip-identity.ts';

/** Whether a merge leaves the workspace nothing of its own to write: its counts, the zip's same changes taken out. */
export function nothingToWrite(counts: {
  files_modified: number;
  files_added: number;
  files_deleted: number;
  files_renamed?: number;
}): boolean {
  return counts.files_modified + counts.files_added + counts.files_deleted + (counts.files_renamed ?? 0) === 0;
}

/**
 * Makes the zip as it is the session's base, the workspace taking its side; the zip is left as it was. Its entries
 * are another writer's bytes, which later syncs copy raw: each is checked first as a merge checks what it copies
 * (copy-check.ts), so a damaged one is refused now, before anything changed.
 */
export async function adoptZipNow(request: SyncRequest, base: Base, plan: MergePlan, sides: MergeSides): Promise<void> {
  const { session } = request;
  const zipPath = base.record.source_path;
  const tracked = sides.tracked;
  const { now } = readZipNow(zipNowRequest(request, base));
  assertSameZip(zipPath, plan.version); // the zip the plan read, or a conflict
  const listed = new Map<string, EntryRecord>(sides.entries.map((record) => [record.path, record]));
  const entries: EntryRecord[] = [];
  for (const placed of [...now].sort((a, b) => a.entry.index - b.entry.index)) {
    if (tracked && !tracked.paths.has(placed.path)) continue; // only in the zip, as before
    const record = entryRecord(placed.entry, placed.path, placed.type);
    // The workspace's file is the base's, unchanged, and the zip kept the entry: what the scan knew of it still holds.
    const old = listed.get(placed.path);
    const unchanged = old && sides.diff.states.get(old.index) === 'unchanged';
    if (unchanged && old.extracted && old.crc32 === record.crc32 && old.size === record.size)
      record.extracted = old.extracted;
    entries.push(record);
  }
  const source = new FileSource(zipPath);
  let central: Uint8Array | undefined;
  let next: SessionRecord;
  try {
    const directory = readPackedDirectory(source, base.record.name_encoding);
    const check = new CopyCheck(source, directory, {
      checked: base.copiesChecked,
      otherWriter: true,
      fd: source.fd,
      pause: eventLoopTurns(request.signal),
      checkedAlready: plan.dataChecked,
    });
    for (let index = 0; index < directory.count; index++) {
      const checking = check.beforeCopy(index);
      if (checking) await checking;
    }
    const files = entries.filter((entry) => entry.type !== 'dir');
    next = {
      ...base.record,
      source: fingerprintSource(source, directory),
      file_count: files.length,
      dir_count: foldersOf(entries).size,
      extracted_size_bytes: files.reduce((sum, entry) => sum + entry.size, 0),
      symlinks: entries.filter((entry) => entry.type === 'symlink').map((entry) => entry.path),
    };
    central = base.checkWritten(directory, next, { limits: request.limits, rules: sessionFolderRules(base.record) });
    central = central?.slice(); // the directory's bytes outlive the source they were read from
  } finally {
    source.close();
  }
  takeZipSide(session.contents, zipPath, plan, tracked ? (relative) => tracked.paths.has(relative) : undefined);
  let nextBase: boolean;
  try {
    if (central) fs.writeFileSync(nextCentralPath(session), central);
    writeManifest(nextManifestPath(session), next, entries);
    nextBase = draftNextBase(session.dir, zipPath);
    assertSameZip(zipPath, plan.version);
    if (central) fs.renameSync(nextCentralPath(session), directoryCopyPath(session));
  } catch (error) {
    // The base stays the old one; the workspace holds only what the zip holds too (merge-apply.ts).
    for (const draft of [nextCentralPath(session), nextManifestPath(session)]) fs.rmSync(draft, { force: true });
    dropNextBase(session.dir);
    throw error;
  }
  fs.renameSync(nextManifestPath(session), session.manifest);
  placeNextBase(session.dir, nextBase);
  clearMergeState(session.dir);
}
