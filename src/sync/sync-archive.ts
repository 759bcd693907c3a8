/**
 * `sync`: writes a workspace back into its source zip.
 *
 * Unchanged entries are copied as their original bytes (local header, data,
 * data descriptor) with their central-directory record, only the offset
 * moved; modified entries keep their place, name, attributes and method and
 * get new data; added ones are appended in path order. The new archive is
 * written beside the source, flushed, read back (verify-written.ts), and
 * renamed over it after the old one is kept as `<name>.bak` (unless the
 * caller asked for no backup), so the source path always holds a complete
 * archive, old or new, whatever kills the process.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError, pathUnusable, permissionDenied, quote } from '../base/errors.ts';
import { keepOnExit, removeOnExit } from '../base/exit-cleanup.ts';
import {
  FileSource,
  ZipWriter,
  parseCentralRecordBytes,
  readPackedDirectory,
  type PackedDirectory,
  type ZipEntry,
} from '../zip/index.ts';
import { foldersOf, type ItemType } from '../rules/item-type.ts';
import { entryRecord, writeManifest, type EntryRecord, type SessionRecord } from '../session/manifest.ts';
import type { Progress } from '../base/progress.ts';
import type { Session } from '../session/session-store.ts';
import { writeAddition, writeFromWorkspace, type Captured } from './sync-entries.ts';
import { TEMP_MARK, assertBackupPathFree, draftBackup, fsyncDirectory, placeBackup, renameOver } from './sync-files.ts';
import { verifyWritten } from './verify-written.ts';
import { CENTRAL_FILE, countEntries } from '../session/lazy-entries.ts';
import { forgetLazyEntries } from '../session/lazy-session.ts';
import { centralFileFacts } from '../session/lazy-integrity.ts';
import { currentFingerprint, isNewArchive, sameArchive, sourceState } from '../session/source-state.ts';
import { describeZipChanges, entryChanged, zipChangesSince } from './zip-changes.ts';
import { planMerge, type MergePlan, type Step } from './merge-plan.ts';
import { takeZipSide } from './merge-apply.ts';
import { checkTakenData, readZipNow, workspacesOf } from './zip-now.ts';
import { fileVersion, replacedDuringMerge } from './zip-identity.ts';
import { removeEmptiedFolders } from './emptied-folders.ts';
import { assertReopenable, assertWithinOpenLimits, lazyReopenFacts } from './reopen-check.ts';
import { assertFinalShape } from './final-shape.ts';
import { CopyCheck } from './copy-check.ts';
import { sessionFolderRules } from '../rules/folder-rules.ts';
import { isFileInUse } from '../rules/file-in-use.ts';
import type { Limits } from '../rules/limits.ts';
import { withZipLock, type LockWait } from '../session/lock.ts';
import { describeLeftover, removeZipLeftovers } from './zip-leftovers.ts';
import { unsupportedFile } from '../base/regular-file.ts';
import { Beneath, withBeneath } from '../files/beneath.ts';
import { showPathsOf } from '../base/descriptor-paths.ts';
import { addedCrc, diffWorkspace, type WorkspaceDiff } from './workspace-diff.ts';
import { invocation, param } from '../base/message-marks.ts';
import { releasePhaseGarbage } from '../base/memory.ts';
import { eventLoopTurns } from '../base/event-loop-turns.ts';
import { readManifest, type Manifest, wholeBase } from '../session/read-manifest.ts';

export interface SyncRequest {
  session: Session;
  force: boolean;
  /** Take the zip's own changes since the base beside the workspace's (merge-plan.ts). */
  merge?: boolean;
  dryRun: boolean;
  /** Keep the previous archive as `<zip>.bak`. */
  backup: boolean;
  progress?: Progress;
  /** Cancellation: checked between entries and before the rename; the temporary is removed. */
  signal?: AbortSignal;
  /** How long to wait for another process syncing the same zip. */
  wait: LockWait;
  /** Open's limits: sync writes no archive open would refuse. */
  limits: Limits;
}

export interface SyncResult {
  synced: boolean;
  backup_path: string | null;
  files_modified: number;
  files_added: number;
  files_deleted: number;
  files_renamed?: number;
  /** A merge: what the zip's side brought into the workspace (`A path`, `M path`, `D path`). */
  from_zip?: string[];
  /** What syncs killed outright had left beside the zip (zip-leftovers.ts), removed by this one. */
  leftovers_removed?: string[];
}

function nextManifestPath(session: Session): string {
  return `${session.manifest}.next`;
}

/** A lazy session's next central.bin, renamed into place just before the next manifest. */
function nextCentralPath(session: Session): string {
  return path.join(session.dir, `${CENTRAL_FILE}.next`);
}

/**
 * A lazy session's new archive, read back packed and put through a lazy open's
 * checks (the session reopens as it was opened); completes the next session
 * record from it, and returns the directory's bytes for the next central.bin.
 */
function checkLazyArchive(temporary: string, total: number, next: SessionRecord): Uint8Array {
  const directory = verifyWritten(temporary, total); // every entry's headers and place, overlaps included
  const lazy = lazyReopenFacts(directory, sessionFolderRules(next));
  const { files, folders } = countEntries(directory);
  const central = directory.region.subarray(0, directory.centralEnd - directory.centralStart);
  // Every entry of the new archive was written by this sync or checked as it was copied (copy-check.ts).
  Object.assign(next, {
    lazy: { ...lazy, ...centralFileFacts(central), data_checked: true },
    file_count: files,
    dir_count: folders,
  });
  return central;
}

/**
 * Finishes or forgets a sync that was killed. The next manifest is written
 * before the archive is renamed into place: if the source now is the archive
 * it describes, the rename happened and the manifest is promoted; otherwise
 * the source is still the old archive and the draft is dropped.
 */
export function recoverInterruptedSync(session: Session): void {
  const next = nextManifestPath(session);
  if (!fs.existsSync(next)) return;
  try {
    const draft = readManifest(next).session;
    const current = currentFingerprint(draft.source_path);
    if (current && sameArchive(current, draft.source)) {
      if (fs.existsSync(nextCentralPath(session)))
        fs.renameSync(nextCentralPath(session), path.join(session.dir, CENTRAL_FILE));
      fs.renameSync(next, session.manifest);
      return;
    }
  } catch {
    // An unreadable draft is a crash before it was complete: drop it.
  }
  fs.rmSync(next, { force: true });
  fs.rmSync(nextCentralPath(session), { force: true });
}

/** Refuses to write over a source that changed since it was opened or last synced, or that vanished, unless forced. */
function checkSource(
  manifest: Manifest,
  force: boolean,
  merge: boolean,
  dir: string,
): { exists: boolean; modified: boolean } {
  const record = manifest.session;
  const state = sourceState(record);
  if (state === 'changed' && merge && !isNewArchive(record)) return { exists: true, modified: true }; // the merge decides, entry by entry
  const fresh = isNewArchive(record);
  if (state === 'missing') {
    if (fresh || force) return { exists: false, modified: true };
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `The source zip ${record.source_path} no longer exists (moved or deleted). Put it back, or pass ${param('force')} to write the workspace there as a new archive.`,
    );
  }
  if (state === 'changed' && !force) {
    if (fresh) {
      throw new ZipfsError(
        'CONFLICT_DETECTED',
        `A file appeared at ${record.source_path}, where this session's new archive is to go, since it was opened. Pass ${param('force')} to replace it with the workspace, or close the session and open that zip instead.`,
      );
    }
    // Say what the other writer did, and what force would throw away of it.
    // A lazy session's manifest lists only what it extracted: what the other writer did is not told apart from what it never read.
    const changes = zipChangesSince(wholeBase(manifest, dir), record.source_path);
    const what = changes
      ? `changed since this session's base (another session or program wrote it): ${describeZipChanges(changes)}`
      : "was replaced since this session's base by something that cannot be read as a zip";
    throw new ZipfsError(
      'CONFLICT_DETECTED',
      `The zip ${record.source_path} ${what}. Nothing was written. Pass ${param('merge')} to keep those changes beside this workspace's (an entry both sides changed is named as a conflict); or pass ${param('force')} to replace it with the workspace, which discards those changes (entries it gained are dropped, the ones it changed go back to this workspace's version).`,
    );
  }
  // Forced over a file that appeared where a new archive goes: replaced whole, nothing of it copied.
  if (fresh) return { exists: false, modified: true };
  return { exists: true, modified: state === 'changed' };
}

export async function syncSession(request: SyncRequest): Promise<SyncResult> {
  const { session } = request;
  recoverInterruptedSync(session);
  const manifest = readManifest(session.manifest);
  // A lazy session's central.bin and manifest lines are checked against each other before the sync trusts them (lazy-integrity.ts).
  manifest.lazy?.();
  const diff = diffWorkspace(session.contents, manifest);
  // Without a merge, the paths sync writes are known now: their shape is checked (final-shape.ts) while
  // the lazy index the scan loaded for new paths is still in memory, not loaded again beside the diff.
  if (!request.merge) assertFinalShape({ manifest, diff, dir: session.dir });
  if (manifest.session.lazy) {
    // The lazy index served the scan; what sync needs of it is in manifest.entries now. Let it go before writing.
    manifest.lazy = undefined;
    forgetLazyEntries();
  }
  releasePhaseGarbage(Math.max(manifest.entries.length, manifest.session.lazy?.entries ?? 0));
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
      `Invalid input for sync: ${param('merge')} keeps the zip's other changes and ${param('force')} discards them; pass one.`,
    );
  if (request.dryRun) {
    const source = checkSource(manifest, request.force, request.merge === true, request.session.dir);
    // A merge's plan: what comes from the zip (or CONFLICT_DETECTED naming what cannot merge).
    if (request.merge && source.modified) {
      const sides = mergeSides(request, manifest, diff);
      const plan = await mergePlanFor(request, sides);
      assertFinalShape({ ...sides, plan, dir: session.dir });
      return { synced: false, backup_path: null, ...mergedCounts(counts, plan) };
    }
    if (request.merge) assertFinalShape({ manifest, diff, dir: session.dir });
    return { synced: false, backup_path: null, ...counts };
  }
  // The check of the zip and the rename over it are one step against every other zipfs process
  // syncing this zip (two sessions of one zip, in one process or several): under the zip's lock.
  const zipPath = manifest.session.source_path;
  // A new archive (open with create) may go in folders that do not exist yet: made now, with it.
  if (isNewArchive(manifest.session) && !fs.existsSync(zipPath))
    fs.mkdirSync(path.dirname(zipPath), { recursive: true });
  const lockAt = fs.existsSync(zipPath) ? fs.realpathSync(zipPath) : zipPath;
  // What a killed sync left (its lock, its temporaries) goes first, and the answer says so.
  const leftovers = removeZipLeftovers(lockAt).map(describeLeftover);
  const result = await withZipLock(lockAt, 'sync', () => writeBack(request, manifest, diff, counts), request.wait);
  return leftovers.length > 0 ? { ...result, leftovers_removed: leftovers } : result;
}

/** The part of a sync that holds the zip's lock: the conflict check, the new archive, and the rename. */
async function writeBack(
  request: SyncRequest,
  manifest: Manifest,
  diff: WorkspaceDiff,
  counts: Omit<SyncResult, 'synced' | 'backup_path'>,
): Promise<SyncResult> {
  const { session } = request;
  // Taken before the check, which reads the zip by its path as writeArchive does again: a file renamed
  // over it between the two (its directory checked, another's entries copied) is caught before the rename.
  const versionAtCheck = fileVersion(manifest.session.source_path);
  const source = checkSource(manifest, request.force, request.merge === true, session.dir);
  // A lazy session merges its whole base: the entries it never extracted are its side too, unchanged.
  const sides = request.merge && source.modified ? mergeSides(request, manifest, diff) : undefined;
  const plan = sides ? await mergePlanFor(request, sides) : undefined;
  if (plan) Object.assign(counts, mergedCounts(counts, plan));
  const changed = counts.files_modified + counts.files_added + counts.files_deleted + (counts.files_renamed ?? 0) > 0;
  const target = source.exists ? fs.realpathSync(manifest.session.source_path) : manifest.session.source_path;
  if (!changed && !source.modified) return { synced: true, backup_path: null, ...counts };

  if (manifest.session.lazy && source.modified && !plan) {
    // Forced: the workspace replaces the zip, but the bytes of the entries it never extracted were only in the base.
    throw new ZipfsError(
      'CONFLICT_DETECTED',
      `The zip ${target} changed since this lazy session's base, whose entries it never extracted it would have to write as they were; a forced sync of a lazy session cannot. Nothing was written. Sync with ${param('merge')} to keep both sides' changes, or extract everything (${invocation('extract')}) and force then.`,
    );
  }
  // A lazy session's limits are on what it extracts (extract-entries.ts), not on the archive.
  if (!manifest.session.lazy) assertWithinOpenLimits(manifest, diff, request.limits);
  // A merge's final set of paths (final-shape.ts): a file where a folder is needed is refused before writing.
  if (request.merge) assertFinalShape({ ...(sides ?? { manifest, diff }), plan, dir: session.dir });
  if (source.exists && request.backup) assertBackupPathFree(target);
  // A program that is not zipfs takes no lock: what it writes meanwhile is caught before the rename.
  // A merge's zip is the one its plan read: replaced since, it is a conflict (zip-identity.ts).
  const before = plan ? plan.version : source.exists ? versionAtCheck : undefined;

  const temporary = path.join(
    path.dirname(target),
    `.${path.basename(target)}${TEMP_MARK}${process.pid}-${globalThis.crypto.randomUUID()}.tmp`,
  );
  removeOnExit(temporary);
  let draft: string | undefined; // the backup, until the rename has worked (sync-files.ts)
  try {
    const { next, gone, replaced, total } = await writeArchive(
      temporary,
      target,
      source.exists,
      manifest,
      sides?.diff ?? diff,
      session.contents,
      plan,
      source.modified && !plan,
      request.progress,
      request.signal,
      sides?.tracked,
    );
    counts.files_added -= gone;
    // A forced sync counts against the zip it replaces, not against this session's base.
    if (source.modified && replaced && !plan) Object.assign(counts, replaced);
    if (manifest.session.lazy) {
      manifest.lazy = undefined;
      forgetLazyEntries();
    }
    releasePhaseGarbage(Math.max(next.entries.length, manifest.session.lazy?.entries ?? 0));
    const central = manifest.session.lazy
      ? checkLazyArchive(temporary, total, next.session)
      : (assertReopenable(verifyWritten(temporary, total), request.limits), undefined);
    releasePhaseGarbage(next.entries.length);
    request.signal?.throwIfAborted(); // the last moment a cancel can take effect: nothing has replaced the zip yet
    if (before !== undefined && fileVersion(target) !== before) {
      throw new ZipfsError(
        'CONFLICT_DETECTED',
        `The source zip ${target} was changed by another program while this sync was writing; nothing was replaced. Run ${invocation('status')} and sync again.`,
      );
    }
    // A merge brings the zip's side into the workspace now, from the zip as it still is (merge-apply.ts).
    // In a lazy session, only what is on disk takes the zip's side there; the rest stays in the zip.
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
    if (source.exists && request.backup) draft = draftBackup(target);
    if (draft) removeOnExit(draft);
    await renameOver(temporary, target);
    keepOnExit(temporary);
    const backup = draft ? placeBackup(draft, target) : null;
    if (draft) keepOnExit(draft);
    fsyncDirectory(path.dirname(target));
    if (central) fs.renameSync(nextCentralPath(session), path.join(session.dir, CENTRAL_FILE));
    fs.renameSync(nextManifestPath(session), session.manifest);
    const moved = [
      ...manifest.entries.filter(
        (entry) => diff.states.get(entry.index) === 'deleted' || diff.states.get(entry.index) === 'renamed',
      ),
      ...(plan?.zipDeleted ?? []),
    ];
    removeEmptiedFolders(session.contents, moved, next.entries);
    return { synced: true, backup_path: backup, ...counts };
  } catch (error) {
    // Before the rename (the temporary is still there), a merge's zip that is no longer the plan's is what failed: a conflict.
    const replaced = plan !== undefined && fs.existsSync(temporary) && fileVersion(target) !== plan.version;
    fs.rmSync(temporary, { force: true });
    keepOnExit(temporary);
    if (draft) {
      fs.rmSync(draft, { force: true });
      keepOnExit(draft);
    }
    fs.rmSync(nextManifestPath(session), { force: true });
    fs.rmSync(nextCentralPath(session), { force: true });
    if (replaced) throw replacedDuringMerge(target);
    if (error instanceof ZipfsError && !vanished(error)) throw error;
    if (vanished(error)) {
      throw new ZipfsError(
        'SYNC_FAILED',
        `A file of the workspace vanished while sync was reading it (${showPathsOf(error as Error).message}); the source zip was left unchanged. Sync again once nothing else is changing the workspace.`,
      );
    }
    if (isFileInUse(error, { files: [temporary, target] })) {
      throw new ZipfsError(
        'FILE_IN_USE',
        `The zip ${target} is in use by another program, which holds it open; sync left the zip and the workspace as they were. Close it there, then retry the sync.`,
      );
    }
    if (isSystemError(error, 'ENAMETOOLONG', 'ELOOP')) throw pathUnusable(error); // the temporary's name beside the zip, too long: the zip is as it was
    if (isSystemError(error, 'ENOSPC', 'EDQUOT'))
      throw new ZipfsError(
        'SYNC_FAILED',
        `The disk holding ${path.dirname(target)} is full; the source zip was left unchanged. Free some space there and sync again.`,
      );
    if (isSystemError(error, 'EACCES', 'EPERM', 'EROFS')) {
      if (error.path !== temporary) throw permissionDenied(error);
      throw new ZipfsError(
        'PERMISSION_DENIED',
        `Sync writes the new archive beside the zip, but ${path.dirname(target)} is not writable by this user; the zip was left unchanged. Give your user write access to that folder, then sync again.`,
      );
    }
    throw new ZipfsError(
      'SYNC_FAILED',
      `Sync failed (${showPathsOf(error as Error).message}); the source zip was left unchanged.`,
      { cause: error },
    );
  }
}

/**
 * The merge of a changed zip and the workspace, planned against the zip as it is now, which must
 * pass the checks open makes of an archive (zip-now.ts): its entries are copied into the new
 * archive and the workspace.
 */
async function mergePlanFor(request: SyncRequest, { manifest, diff, tracked }: MergeSides): Promise<MergePlan> {
  const rules = sessionFolderRules(manifest.session);
  const { caseInsensitive } = rules;
  const zipNow = {
    zipPath: manifest.session.source_path,
    lazy: manifest.session.lazy !== undefined,
    rules,
    limits: request.limits,
    workspaces: workspacesOf(request.session.dir),
  };
  const { now, version } = readZipNow(zipNow);
  const plan = withBeneath(request.session.contents, (beneath) =>
    planMerge({ base: manifest.entries, diff, now, crcOf: (relative) => addedCrc(beneath, relative), caseInsensitive }),
  );
  await checkTakenData(zipNow, plan.steps, version, tracked && ((relative) => tracked.paths.has(relative)));
  return { ...plan, version };
}

/** The workspace's side of a merge: in a lazy session, the whole base, and what of it is on disk. */
interface MergeSides {
  manifest: Manifest;
  diff: WorkspaceDiff;
  /** A lazy session's entries that are on disk (extracted, or a tool's file at their path), by index and path. */
  tracked?: { indexes: Set<number>; paths: Set<string> };
}

function mergeSides(request: SyncRequest, manifest: Manifest, diff: WorkspaceDiff): MergeSides {
  if (!manifest.session.lazy) return { manifest, diff };
  const whole = wholeBase(manifest, request.session.dir);
  // The entries never extracted are unchanged on this side.
  const states = new Map(diff.states);
  for (const entry of whole.entries) if (!states.has(entry.index)) states.set(entry.index, 'unchanged');
  return {
    manifest: whole,
    diff: { ...diff, states },
    tracked: {
      indexes: new Set(manifest.entries.map((entry) => entry.index)),
      paths: new Set(manifest.entries.map((entry) => entry.path)),
    },
  };
}

/** A merge's counts: the workspace's side (a change the zip made too is counted once, in from_zip), and the zip's. */
function mergedCounts(
  counts: Omit<SyncResult, 'synced' | 'backup_path'>,
  plan: MergePlan,
): Omit<SyncResult, 'synced' | 'backup_path'> {
  const { same } = plan;
  const renamed = (counts.files_renamed ?? 0) - same.renamed;
  // files_renamed only when there are renames (undefined is left out of the answer).
  return {
    ...counts,
    files_added: counts.files_added - same.added,
    files_modified: counts.files_modified - same.modified,
    files_deleted: counts.files_deleted - same.deleted,
    files_renamed: renamed > 0 ? renamed : undefined,
    from_zip: plan.fromZip,
  };
}

/** A workspace path that was there at the scan and is gone now (workspace files are reached through beneath.ts's descriptors). */
function vanished(error: unknown): boolean {
  return (
    (isSystemError(error, 'ENOENT') && error.path?.startsWith('/proc/self/fd/') === true) ||
    (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND')
  );
}

/** What the scan found that no zip can hold faithfully, or that would bring outside content in: named, with the way out. */
function refuseUnsupported(diff: WorkspaceDiff): void {
  if (diff.unsupported.length === 0) return;
  const shown = diff.unsupported.slice(0, 5).map((u) => `${quote(u.path)}: ${u.reason}`);
  const more =
    diff.unsupported.length > 5 ? `; and ${diff.unsupported.length - 5} more (${invocation('status')} lists them)` : '';
  throw new ZipfsError(
    'SYNC_FAILED',
    `The workspace holds what sync will not put in a zip: ${shown.join('; ')}${more}. Nothing was written; fix these and sync again.`,
  );
}

/**
 * Writes the new archive to `temporary`, flushed, and returns the manifest
 * that describes it: built from what was written (records of copied entries
 * as parsed from the source, fresh ones parsed from the bytes just encoded),
 * with the stat of each workspace file it was written from, so the next
 * status is clean without reading the archive back.
 */
async function writeArchive(
  temporary: string,
  target: string,
  sourceExists: boolean,
  manifest: Manifest,
  diff: WorkspaceDiff,
  root: string,
  plan: MergePlan | undefined,
  forced: boolean,
  progress?: Progress,
  signal?: AbortSignal,
  tracked?: MergeSides['tracked'],
): Promise<{ next: Manifest; gone: number; total: number; replaced?: Omit<SyncResult, 'synced' | 'backup_path'> }> {
  let gone = 0;
  const mode = sourceExists ? fs.statSync(target).mode & 0o7777 : 0o644;
  const fd = fs.openSync(temporary, 'wx', mode);
  const source = sourceExists ? new FileSource(target) : undefined;
  const sourceFd = source?.fd; // raw copies come from the file the directory was read from
  const captured: Captured = new Map();
  let beneath: Beneath | undefined;
  try {
    beneath = new Beneath(root);
    fs.fchmodSync(fd, mode); // the umask must not narrow the archive's permissions
    // Packed: a source of a million entries costs its directory's bytes, not an object per entry.
    let directory = source ? readPackedDirectory(source) : undefined;
    const writer = new ZipWriter(fd, directory?.baseOffset ?? 0);
    if (directory) writer.reserveDirectory(directory.centralEnd - directory.centralStart + (64 << 10));
    const ends = directory ? directory.rawEnds() : new Float64Array(0);
    const firstLocal = directory
      ? directory.count > 0
        ? Math.min(directory.localHeaderOffset(directory.byOffset()[0]!), directory.centralStart)
        : directory.centralStart
      : 0;
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
    const step = async (label: string) => {
      progress?.(Math.min(writer.size, total), total, label);
      await pause();
    };
    // Raw copies of bytes this session never checked are checked first: a damaged entry is refused, not copied.
    const check =
      directory &&
      new CopyCheck(source!, directory, {
        session: manifest.session,
        otherWriter: plan !== undefined || forced,
        fd: sourceFd!,
        pause,
      });

    // What each entry of the new archive is, in its order: a copied entry (its record from the source) or a fresh one.
    const written: (
      | { path: string; type: ItemType; copied?: ZipEntry; at?: number; central?: Uint8Array; fromZip?: true }
      | typeof LEFT_IN_ZIP
    )[] = [];
    // The entries in their new order: the base's (a plain sync), or the merge's (the zip's current order, merge-plan.ts).
    // A lazy session's entries not extracted: unchanged, copied raw from the base, which the source still is (checkSource).
    // Copied by index, between the manifest's records, with no object per entry: there may be a million.
    let lazyNext = 0;
    const copyLazyUpTo = async (end: number) => {
      for (; lazyNext < end; lazyNext++) {
        const checking = check!.beforeCopy(lazyNext);
        if (checking) await checking;
        const at = writer.size;
        writer.copyRange(sourceFd!, directory!.localHeaderOffset(lazyNext), ends[lazyNext]!);
        writer.addCopiedRecordFrom(
          directory!.region,
          directory!.recordStart(lazyNext),
          directory!.recordLength(lazyNext),
          at,
        );
        written.push(LEFT_IN_ZIP);
        if ((lazyNext & 0xffff) === 0xffff) await step('');
      }
    };
    const lazy = manifest.session.lazy !== undefined && !plan;
    const steps: Iterable<Step> = plan?.steps ?? manifest.entries.map((record) => ({ kind: 'base', record }));
    for (const item of steps) {
      if (lazy && item.kind === 'base') {
        await copyLazyUpTo(item.record.index);
        lazyNext = item.record.index + 1;
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
        const central = await writeFromWorkspace(
          writer,
          beneath!,
          record,
          original,
          source,
          captured,
          diff,
          pause,
          renamedTo,
        );
        written.push({ path: renamedTo ?? record.path, type: record.type, central });
      }
      await step(record.path);
    }
    if (lazy) await copyLazyUpTo(manifest.session.lazy!.entries);
    for (const addition of diff.additions) {
      if (plan?.sameAdditions.has(addition.path)) continue; // the zip added the same: written from it above
      const { kind } = addition.observed;
      if (kind === 'special') throw unsupportedFile(addition.path, addition.observed.what!); // refused before writing began; never packed
      // What came and went since the scan (an editor's swap file) is not there to write: left out, and not
      // counted. A file is found gone as it is read, before its entry is begun; a folder is looked for first.
      const there = kind !== 'dir' || beneath!.lstat(addition.path)?.isDirectory() === true;
      const central = there
        ? await writeAddition(writer, beneath!, addition.path, addition.observed, captured, pause).catch(
            (error: unknown) => {
              if (vanished(error)) return undefined;
              throw error;
            },
          )
        : undefined;
      if (central === undefined) {
        gone++;
        continue;
      }
      written.push({ path: addition.path, type: kind, central });
      await step(addition.path);
    }
    const end = writer.finish(directory?.commentBytes ?? new Uint8Array(0), directory?.zip64 ?? false);
    progress?.(total, total, 'done');
    fs.fsyncSync(fd);

    const entries: EntryRecord[] = [];
    written.forEach((item, index) => {
      if (item === LEFT_IN_ZIP) return; // a lazy session's entry, still only in the zip: central.bin describes it
      const centralOffset = end.centralOffsets[index]!;
      let record: EntryRecord;
      if (item.copied) {
        record = entryRecord(item.copied, item.path, item.type);
        record.index = index;
        record.local_header_offset = item.at!;
        record.central_offset = centralOffset;
      } else {
        const entry = parseCentralRecordBytes(item.central!, index, writer.base, centralOffset);
        record = entryRecord(entry, item.path, item.type !== 'dir' && entry.isSymlink ? 'symlink' : item.type);
      }
      const observed = captured.get(item.path) ?? diff.observed.get(item.path);
      if (record.type !== 'dir' && observed && !item.fromZip)
        record.extracted = {
          size: observed.size,
          mtime_ms: observed.mtime_ms,
          ctime_ms: observed.ctime_ms,
          ino: observed.ino,
        };
      entries.push(record);
    });
    // The new archive against the zip it replaces, by name: after a forced sync over a zip another
    // writer changed, these are the counts that say what it kept of the workspace and what it discarded.
    const replaced =
      directory && forced
        ? againstReplaced(
            directory,
            entries,
            new Set(
              manifest.entries.filter((entry) => diff.states.get(entry.index) === 'renamed').map((entry) => entry.name),
            ),
          )
        : undefined;
    // The source's parsed directory is ~0.5 KB per entry, and the runtime keeps an async function's
    // locals for a while after it returns: let go of it here (50 MiB at 100,000 entries).
    directory = undefined;
    names = undefined;
    const files = entries.filter((e) => e.type !== 'dir');
    const session: SessionRecord = {
      ...manifest.session,
      source: { size: end.size, mtime_ms: fs.fstatSync(fd).mtimeMs, directory_sha256: end.directorySha256 },
      file_count: files.length,
      dir_count: foldersOf(entries).size,
      extracted_size_bytes: files.reduce((sum, e) => sum + e.size, 0),
      symlinks: entries.filter((e) => e.type === 'symlink').map((e) => e.path),
    };
    return { next: { session, entries }, gone, replaced, total: written.length };
  } finally {
    beneath?.close();
    fs.closeSync(fd);
    source?.close();
  }
}

/** Modified, added and deleted entries of a new archive against the zip it replaces, by name (renamed ones' old names aside). */
function againstReplaced(
  directory: PackedDirectory,
  written: EntryRecord[],
  renamedFrom: ReadonlySet<string>,
): Omit<SyncResult, 'synced' | 'backup_path'> {
  const before = new Map<string, ZipEntry>();
  for (let i = 0; i < directory.count; i++) {
    const entry = directory.entry(i);
    before.set(entry.name, entry);
  }
  let modified = 0;
  let added = 0;
  for (const entry of written) {
    const was = before.get(entry.name);
    before.delete(entry.name);
    if (!was) added++;
    else if (entryChanged(entry, was)) modified++;
  }
  const deleted = [...before.keys()].filter((name) => !renamedFrom.has(name)).length;
  return { files_modified: modified, files_added: added, files_deleted: deleted };
}

/**
 * The source's entry for a manifest record, if the source still holds it
 * unchanged: at the same index normally, found by name when a forced sync
 * writes over a source that was rewritten meanwhile.
 */
function findOriginal(
  directory: PackedDirectory,
  byName: () => Map<string, number>,
  record: EntryRecord,
): ZipEntry | undefined {
  const same = (e: ZipEntry | undefined) =>
    e !== undefined &&
    e.name === record.name &&
    e.crc32 === record.crc32 &&
    e.compressedSize === record.compressed_size &&
    e.method === record.method;
  const byIndex = record.index < directory.count ? directory.entry(record.index) : undefined;
  if (same(byIndex)) return byIndex;
  const at = byName().get(record.name);
  const named = at === undefined ? undefined : directory.entry(at);
  return same(named) ? named : undefined;
}

/** Marks, in the list of what a sync wrote, an entry of a lazy session copied without being extracted. */
const LEFT_IN_ZIP = Symbol('left in the zip');
