/**
 * `sync`: writes a workspace back into its source zip.
 *
 * Unchanged entries are copied as their original bytes (local header, data,
 * data descriptor) with their central-directory record, only the offset
 * moved; modified entries keep their place, name, attributes and method and
 * get new data; added ones are appended in path order. The new archive is
 * written beside the source, flushed, read back (verify-written.ts), and
 * renamed over it once the old one is kept as `<name>.bak`, older backups
 * numbered (backup-history.ts; none when the caller asked for no backup), so
 * the source path always holds a complete archive, old or new, whatever kills
 * the process.
 */
import { assertNoLockedChanges } from './locked-changes.ts';
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError } from '../base/errors.ts';
import { keepOnExit, removeOnExit } from '../base/exit-cleanup.ts';
import { writeManifest } from '../session/manifest.ts';
import { TEMP_MARK, assertBackupPathFree, fsyncDirectory, renameOver, startWritingBack } from './sync-files.ts';
import { BackupHistory } from './backup-history.ts';
import { verifyWritten } from './verify-written.ts';
import { isNewArchive } from '../session/source-state.ts';
import { draftNextBase, dropNextBase, placeNextBase } from '../session/base-archive.ts';
import { takeZipSide } from './merge-apply.ts';
import { changedSince, fileVersion, replacedDuringMerge, writtenSince } from './zip-identity.ts';
import { removeEmptiedFolders } from './emptied-folders.ts';
import { assertWithinOpenLimits } from './open-limits.ts';
import { assertFinalShape } from './final-shape.ts';
import { sessionFolderRules } from '../rules/folder-rules.ts';
import { withZipLock } from '../session/lock.ts';
import { describeLeftover, removeZipLeftovers } from './zip-leftovers.ts';
import { diffWorkspace, type WorkspaceDiff } from './workspace-diff.ts';
import { invocation, param } from '../base/message-marks.ts';
import { releasePhaseGarbage } from '../base/memory.ts';
import type { Base } from '../workspace/base.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { checkSource } from './check-source.ts';
import { directoryCopyPath, nextCentralPath, nextManifestPath, recoverInterruptedSync } from './interrupted-sync.ts';
import { fromWorkspace, mergePlanFor, mergeSides, mergedCounts } from './merge-sides.ts';
import { adoptZipNow, nothingToWrite } from './adopt-zip.ts';
import { assertNoMarkersLeft, writeMerged } from './line-markers.ts';
import { clearMergeState } from '../session/merge-state.ts';
import { refuseUnsupported, syncFailure } from './sync-failure.ts';
import type { SyncCounts, SyncRequest, SyncResult } from './sync-types.ts';
import { writeArchive } from './write-archive.ts';
import { fetchRewritten, refreshRemote, uploadRemote } from './sync-remote.ts';
import { phase } from '../base/phase-trace.ts';
import type { ServerCopies } from '../remote/server-copies.ts';
import { methodChangesPlanned, methodChangesWritten } from './method-changes.ts';

export type { SyncRequest, SyncResult } from './sync-types.ts';
// Every command that reads a session finishes a killed sync first.
export { recoverInterruptedSync };

export async function syncSession(request: SyncRequest): Promise<SyncResult> {
  const { session } = request;
  recoverInterruptedSync(session);
  // A remote archive: its mirror made the server's version now before anything reads it, whole unless the store can
  // copy what it lacks (an S3 session's copies: sync-remote.ts).
  const copies = await refreshRemote(session.record, request.signal);
  const base = workspaceOf(session).base();
  phase('base');
  // What the base is read from is checked before the sync trusts it (a copy of the directory against the manifest).
  base.verify();
  const diff = diffWorkspace(session.contents, base);
  phase('diff');
  // Without a merge, the paths sync writes are known now: their shape is checked (final-shape.ts) while
  // the index the scan loaded for new paths is still in memory, not loaded again beside the diff.
  if (!request.merge) assertFinalShape({ base, entries: diff.entries, diff });
  // The index served the scan; what sync needs of it is in diff.entries now. Let it go before writing.
  base.release();
  releasePhaseGarbage(Math.max(diff.entries.length, base.count));
  refuseUnsupported(diff);
  // files_renamed only when there are renames: answers of syncs without any keep their shape.
  const counts = {
    files_modified: diff.modified.length,
    files_added: diff.added.length,
    files_deleted: diff.deleted.length,
    ...(diff.renamed.length > 0 ? { files_renamed: diff.renamed.length } : {}),
  };
  if (request.merge && request.force)
    throw new ZipfsError(
      'INVALID_INPUT',
      `Invalid input for sync: ${param('merge')} keeps the zip's other changes and ${param('force')} discards ` +
        `them; pass one.`,
    );
  // A merge's conflict markers left in a file: refused, whatever else is asked (line-markers.ts).
  assertNoMarkersLeft(session);
  assertNoLockedChanges(diff);
  if (request.dryRun) {
    const planned = methodChangesPlanned(diff);
    if (planned.length > 0) Object.assign(counts, { method_changed: planned });
    const source = checkSource(base, { force: request.force, merge: request.merge === true });
    // A merge's plan: what comes from the zip (or CONFLICT_DETECTED naming what cannot merge).
    if (request.merge && source.modified) {
      const sides = mergeSides(base, diff);
      const plan = await mergePlanFor(request, base, sides);
      assertFinalShape({ ...sides, base, plan });
      return {
        synced: false,
        backup_path: null,
        ...mergedCounts(counts, plan),
        from_workspace: fromWorkspace(diff, plan),
      };
    }
    if (!request.merge) return { synced: false, backup_path: null, ...counts };
    assertFinalShape({ base, entries: diff.entries, diff });
    return { synced: false, backup_path: null, ...counts, from_workspace: fromWorkspace(diff) };
  }
  // The check of the zip and the rename over it are one step against every other zipfs process
  // syncing this zip (two sessions of one zip, in one process or several): under the zip's lock.
  const zipPath = base.record.source_path;
  // A new archive (open with create) may go in folders that do not exist yet: made now, with it.
  if (isNewArchive(base.record) && !fs.existsSync(zipPath)) fs.mkdirSync(path.dirname(zipPath), { recursive: true });
  const lockAt = fs.existsSync(zipPath) ? fs.realpathSync(zipPath) : zipPath;
  // What a killed sync left (its lock, its temporaries) goes first, and the answer says so.
  const leftovers = removeZipLeftovers(lockAt).map(describeLeftover);
  const result = await withZipLock(lockAt, 'sync', () => writeBack(request, base, diff, counts, copies), request.wait);
  return leftovers.length > 0 ? { ...result, leftovers_removed: leftovers } : result;
}

/** The part of a sync that holds the zip's lock: the conflict check, the new archive, and the rename. */
async function writeBack(
  request: SyncRequest,
  base: Base,
  diff: WorkspaceDiff,
  counts: SyncCounts,
  serverCopies?: ServerCopies,
): Promise<SyncResult> {
  const { session } = request;
  const remote = base.record.remote !== undefined;
  // What the writer will read of the old archive and the mirror lacks, fetched before the mirror's version is taken.
  if (serverCopies) await fetchRewritten(base.record, diff, request.signal);
  // Taken before the check, which reads the zip by its path as writeArchive does again: a file renamed
  // over it between the two (its directory checked, another's entries copied) is caught before the rename.
  const versionAtCheck = fileVersion(base.record.source_path);
  const source = checkSource(base, { force: request.force, merge: request.merge === true });
  phase('lock+check source');
  // A merge takes the whole base: the entries never extracted are the workspace's side too, unchanged.
  const sides = request.merge && source.modified ? mergeSides(base, diff) : undefined;
  const plan = sides ? await mergePlanFor(request, base, sides) : undefined;
  if (plan) Object.assign(counts, mergedCounts(counts, plan));
  const changed = counts.files_modified + counts.files_added + counts.files_deleted + (counts.files_renamed ?? 0) > 0;
  const target = source.exists ? fs.realpathSync(base.record.source_path) : base.record.source_path;
  if (!changed && !source.modified) return { synced: true, backup_path: null, ...counts };

  // Forced, the workspace replaces the zip: refused where the base's bytes are only in the zip (Base.assertForceable).
  if (source.modified && !plan) base.assertForceable(target);
  // Where open's limits are on what is extracted, extracting held the session to them (extract-entries.ts).
  if (base.limitsOn === 'archive') assertWithinOpenLimits(diff, request.limits);
  // A merge's final set of paths (final-shape.ts): a file where a folder is needed is refused before writing.
  if (request.merge) assertFinalShape({ ...(sides ?? { entries: diff.entries, diff }), base, plan });
  // Nothing of the workspace's own to write: the zip stays as it is, and becomes the session's base (adopt-zip.ts).
  if (plan && sides && nothingToWrite(counts)) {
    await adoptZipNow(request, base, plan, sides);
    return { synced: true, backup_path: null, ...counts };
  }
  if (source.exists && request.backup) assertBackupPathFree(target);
  // A program that is not zipfs takes no lock: what it writes meanwhile is caught before the rename.
  // A merge's zip is the one its plan read: replaced since, it is a conflict (zip-identity.ts).
  const before = plan ? plan.version : source.exists ? versionAtCheck : undefined;
  // Copies on the server only from the version the session read: a merge's or a forced sync's mirror is whole.
  const copies = plan || source.modified ? undefined : serverCopies;

  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}${TEMP_MARK}${process.pid}-${globalThis.crypto.randomUUID()}.tmp`,
  );
  removeOnExit(temporary);
  let backups: BackupHistory | undefined;
  let flushed: Promise<void> | undefined;
  try {
    // Text files merged by lines: the merged text goes into the workspace, and from there into the new archive.
    if (plan) writeMerged(session.contents, plan.byLines);
    // The backups: the oldest beyond the count start to go now, beside the writing (backup-history.ts).
    // A remote archive's previous version is kept on the server (remote/upload.ts), not beside its mirror.
    if (source.exists && request.backup && !remote) backups = new BackupHistory(target, request.limits.keepBackups);
    const written = await writeArchive({
      temporary,
      target,
      sourceExists: source.exists,
      base,
      entries: diff.entries,
      diff: sides?.diff ?? diff,
      root: session.contents,
      plan,
      forced: source.modified && !plan,
      progress: request.progress,
      signal: request.signal,
      tracked: sides?.tracked,
      copies,
    });
    // On disk before the rename, flushed meanwhile (one fsync: the rest of the session's files are not).
    flushed = written.flushed;
    const { next, gone, replaced, total, pieceStarts } = written;
    phase('write archive');
    counts.files_added -= gone;
    const methodChanged = methodChangesWritten(sides?.diff ?? diff, next.entries);
    if (methodChanged.length > 0) Object.assign(counts, { method_changed: methodChanged });
    // A forced sync counts against the zip it replaces, not against this session's base.
    if (source.modified && replaced && !plan) Object.assign(counts, replaced);
    base.release();
    releasePhaseGarbage(Math.max(next.entries.length, base.count));
    // Read back (every entry's headers and place, overlaps included: verify-written.ts), then through the checks
    // its next open makes; what the session keeps beside its manifest (a central.bin) comes from it.
    // Copies from a zip written since the base was recorded (or another writer's, merged or forced over) are read
    // back whole: their bytes are not the ones checked before.
    const sameBytes = !plan && !source.modified && !writtenSince(versionAtCheck, base.record.source.mtime_ms);
    const central = base.checkWritten(
      verifyWritten(temporary, total, {
        nameEncoding: base.record.name_encoding,
        holes: copies?.holes,
        pieceStarts: sameBytes ? pieceStarts : undefined,
      }),
      next.session,
      {
        limits: request.limits,
        rules: sessionFolderRules(base.record),
        namesKept: !plan && !source.modified && diff.additions.length === 0 && diff.renamed.length === 0,
      },
    );
    phase('verify written');
    // Entries copied on the server were not read (copy-check.ts): the next sync checks those the mirror then has.
    if (copies?.holes.length) delete next.session.lazy?.data_checked;
    releasePhaseGarbage(next.entries.length);
    request.signal?.throwIfAborted(); // the last moment a cancel can take effect: nothing has replaced the zip yet
    if (before !== undefined && changedSince(target, before)) {
      throw new ZipfsError(
        'CONFLICT_DETECTED',
        `The source zip ${target} was changed by another program while this sync was writing; nothing was ` +
          `replaced. Run ${invocation('status')} and sync again.`,
      );
    }
    // A remote archive goes to the server first, on the condition it still has the version read (CONFLICT_DETECTED).
    const sent =
      remote &&
      (await uploadRemote(base.record, temporary, { backup: request.backup, signal: request.signal, copies }));
    if (sent) next.session.remote = sent.remote;
    // A merge brings the zip's side into the workspace now, from the zip as it still is (merge-apply.ts).
    // Where not every entry is on disk, only what is takes the zip's side there; the rest stays in the zip.
    if (plan)
      takeZipSide(
        session.contents,
        target,
        plan,
        sides?.tracked ? (relative) => sides.tracked!.paths.has(relative) : undefined,
      );
    // Not flushed: only the archive is (one fsync). A power cut between the archive's rename and
    // this file reaching the disk leaves the old manifest, so the next sync reports a conflict
    // (resolved with force); the archive itself is whole either way.
    if (central) fs.writeFileSync(nextCentralPath(session), central);
    writeManifest(nextManifestPath(session), next.session, next.entries);
    startWritingBack(nextManifestPath(session));
    phase('write manifest');
    const nextBase = draftNextBase(session.dir, temporary); // a link to the new archive (base-archive.ts)
    await backups?.place();
    await flushed;
    phase('flushed');
    await renameOver(temporary, target).catch((error) => {
      backups?.undo();
      throw error;
    });
    keepOnExit(temporary);
    backups?.replaced();
    fsyncDirectory(path.dirname(target));
    if (central) fs.renameSync(nextCentralPath(session), directoryCopyPath(session));
    fs.renameSync(nextManifestPath(session), session.manifest);
    placeNextBase(session.dir, nextBase);
    clearMergeState(session.dir);
    const moved = [
      ...diff.entries.filter(
        (entry) => diff.states.get(entry.index) === 'deleted' || diff.states.get(entry.index) === 'renamed',
      ),
      ...(plan?.zipDeleted ?? []),
    ];
    phase('renames');
    removeEmptiedFolders(session.contents, moved, next.entries);
    const kept = await backups?.report();
    if (sent) return { synced: true, backup_path: sent.backup ?? null, ...counts, bytes_sent: sent.bytes_sent };
    return { synced: true, backup_path: null, ...counts, ...kept };
  } catch (error) {
    // Before the rename (the temporary is still there), a merge's zip that is no longer the plan's is what failed: a
    // conflict.
    const replaced = plan !== undefined && fs.existsSync(temporary) && changedSince(target, plan.version);
    await flushed?.catch(() => undefined); // its descriptor closed first: Windows removes no file held open
    fs.rmSync(temporary, { force: true });
    keepOnExit(temporary);
    fs.rmSync(nextManifestPath(session), { force: true });
    fs.rmSync(nextCentralPath(session), { force: true });
    dropNextBase(session.dir);
    if (replaced) throw replacedDuringMerge(target);
    throw syncFailure(error, { temporary, target });
  }
}
