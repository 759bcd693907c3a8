import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError } from '../base/errors.ts';
import { assertValidName } from '../session/session-name.ts';
import { assertKeyFits, encryptionOf, readCentralDirectory, stillLocked } from '../zip/index.ts';
import { workspaceTarget } from './workspace-rules.ts';
import { checkArchive } from './archive-checks.ts';
import { releasePhaseGarbage } from '../base/memory.ts';
import { fingerprintSource } from '../session/source-state.ts';
import { keepBaseAtOpen } from '../session/base-archive.ts';
import { publishOnce, publishedSession } from './publish-session.ts';
import { openLazy } from './open-lazy.ts';
import { claimName } from './take-over.ts';
import { extract } from './extract-archive.ts';
import { nameWarning } from './name-warning.ts';
import { remoteRequest } from './open-remote.ts';
import { isRemote } from '../remote/remote-url.ts';
import { phase } from '../base/phase-trace.ts';
import {
  assertDiskSpace,
  inStaging,
  openSource,
  sessionRecord,
  zipExists,
  type OpenRequest,
  type Opened,
} from './open-request.ts';

/**
 * `open`: extracts an archive into a new session. Everything is written into
 * a hidden staging folder that becomes the session by one rename at the end,
 * so a failed or interrupted open leaves no session and no folder. With
 * `create`, a path where no file is yet opens an empty session whose first
 * sync writes the archive.
 */
export async function openArchive(asked: OpenRequest): Promise<Opened> {
  // A remote archive is opened as its local mirror, made ready first (open-remote.ts).
  const request = isRemote(asked.zipPath) ? await remoteRequest(asked) : asked;
  const zipPath = path.resolve(request.zipPath);
  let tookOver: string | undefined;
  if (request.name !== undefined) {
    assertValidName(request.name);
    tookOver = await claimName(request.home, request.name, request.owner);
  }
  const session = await openNamed(request, zipPath);
  return tookOver ? { ...session, tookOver } : session;
}

async function openNamed(request: OpenRequest, zipPath: string): Promise<Opened> {
  if (request.create && !zipExists(zipPath)) return createArchiveSession(request, zipPath);
  if (request.lazy || (request.only?.length ?? 0) > 0) return openLazy(request, zipPath);
  const source = openSource(zipPath);
  try {
    const directory = readCentralDirectory(source, request.nameEncoding);
    phase('open: read directory');
    const target = workspaceTarget(request.home, true);
    phase('open: workspace target');
    // Every entry's headers and place, locked ones' too: sync copies those raw, and must meet no damage open let in.
    const plan = checkArchive(source, directory, request.limits, target);
    phase('open: check archive');
    // Encrypted entries without their key (none given, none from a prompt or an elicitation) stay in the zip, as a
    // lazy session keeps entries; the rest is extracted.
    if (directory.entries.some(stillLocked)) return await openLazy({ ...request, allButLocked: true }, zipPath);
    // A wrong password is refused before anything is extracted (each encrypted entry's check value).
    const encrypted = directory.entries.filter((entry) => encryptionOf(entry));
    for (const entry of encrypted) assertKeyFits(source, entry);
    const published = await inStaging(request, plan.totalBytes, async (staging) => {
      phase('open: staging');
      assertDiskSpace(staging, plan.totalBytes);
      if (encrypted.length > 0) fs.chmodSync(staging, 0o700); // its plaintext is for this user only
      const entries = await extract(source, directory, plan, {
        root: path.join(staging, 'contents'),
        threads: request.limits.threads,
        progress: request.progress,
        signal: request.signal,
      });
      phase('open: extract');
      releasePhaseGarbage(entries.length);
      request.signal?.throwIfAborted();
      const symlinks = plan.items.filter((i) => i.type === 'symlink').map((i) => i.path);
      const record = sessionRecord({
        zipPath,
        source: fingerprintSource(source, directory),
        staging,
        counts: { files: plan.fileCount, dirs: plan.dirCount, bytes: plan.totalBytes, symlinks },
        rules: target.rules,
        owner: request.owner,
        nameEncoding: request.nameEncoding,
        remote: request.remote,
      });
      phase('open: record');
      keepBaseAtOpen(zipPath, staging, source); // for a merge by lines after another writer replaced the zip
      phase('open: base');
      return publishOnce(request, staging, record, entries);
    });
    phase('open: publish');
    const warning = nameWarning(directory.entries, request.nameEncoding, true);
    const session = publishedSession(request.home, published);
    phase('open: load session');
    return warning && !session.shared ? { ...session, nameWarning: warning } : session;
  } finally {
    source.close();
  }
}

/**
 * An empty session for an archive still to be written (its fingerprint's size -1 says so: sync-archive.ts,
 * isNewArchive).
 */
async function createArchiveSession(request: OpenRequest, zipPath: string): Promise<Opened> {
  // Missing folders on the way are made by the first sync, with the archive; a file where one must go cannot be.
  let folder = path.dirname(zipPath);
  while (!fs.existsSync(folder) && path.dirname(folder) !== folder) folder = path.dirname(folder);
  if (!fs.statSync(folder, { throwIfNoEntry: false })?.isDirectory()) {
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `Cannot create ${zipPath}: ${folder} is a file, not a folder. Give another path.`,
    );
  }
  const published = await inStaging(request, 0, (staging) => {
    fs.mkdirSync(path.join(staging, 'contents'));
    const record = sessionRecord({
      zipPath,
      source: { size: -1, mtime_ms: 0, directory_sha256: '' },
      staging,
      counts: { files: 0, dirs: 0, bytes: 0, symlinks: [] },
      rules: workspaceTarget(request.home, true).rules,
      owner: request.owner,
    });
    return publishOnce(request, staging, record, []);
  });
  return publishedSession(request.home, published);
}
