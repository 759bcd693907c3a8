/**
 * `open --lazy` and `open --only`: a session made from the central directory
 * alone, in about the time it takes to read it (DESIGN.md, "Lazy sessions").
 * Open's checks of names, clashes, encryption, methods and overlapping
 * entries run on the whole directory; the limits on sizes and ratios apply to
 * what is extracted or read, entry by entry, so an archive of a million
 * entries or 10 GB opens under the defaults. The directory is kept in the
 * session as central.bin; the manifest lists only what is extracted. With
 * `only`, the entries those paths and globs name are extracted at once.
 */
import fs from 'node:fs';
import path from 'node:path';
import { anyMayBeLocked, readPackedDirectory } from '../zip/index.ts';
import { workspaceTarget } from './workspace-rules.ts';
import { CENTRAL_FILE, lazyEntriesOf } from '../session/lazy-entries.ts';
import { countEntries } from '../session/entry-count.ts';
import { fingerprintSource } from '../session/source-state.ts';
import { keepBaseAtOpen } from '../session/base-archive.ts';
import { centralFileFacts } from '../session/lazy-integrity.ts';
import { loadSession, removeSession } from '../session/session-store.ts';
import { extractEntries } from '../workspace/extract-entries.ts';
import { lazyEntries } from '../session/lazy-session.ts';
import { matchEntries, unlockedIndexes } from '../workspace/match-entries.ts';
import { withSessionLock } from '../session/lock.ts';
import { releasePhaseGarbage } from '../base/memory.ts';
import { inStaging, openSource, sessionRecord, type Opened, type OpenRequest } from './open-request.ts';
import { publishOnce, publishedSession, type Published } from './publish-session.ts';
import { nameWarning, packedSamples } from './name-warning.ts';

export async function openLazy(request: OpenRequest, zipPath: string): Promise<Opened> {
  const source = openSource(zipPath);
  let published: Published;
  let warning: string | undefined;
  try {
    const directory = readPackedDirectory(source, request.nameEncoding);
    warning = nameWarning(packedSamples(directory), request.nameEncoding, true);
    const target = workspaceTarget(request.home, true);
    const { lazy, facts } = lazyEntriesOf(directory, target.rules);
    releasePhaseGarbage(lazy.count); // the checks' garbage, before the session is written
    published = await inStaging(request, 0, (staging) => {
      fs.mkdirSync(path.join(staging, 'contents'));
      if (anyMayBeLocked(directory)) fs.chmodSync(staging, 0o700); // what it extracts or reads is for this user only
      const central = directory.region.subarray(0, directory.centralEnd - directory.centralStart);
      fs.writeFileSync(path.join(staging, CENTRAL_FILE), central);
      const { files, folders } = countEntries(directory);
      const counts = { files, dirs: folders, bytes: 0, symlinks: [] };
      const record = {
        ...sessionRecord({
          zipPath,
          source: fingerprintSource(source, directory),
          staging,
          counts,
          rules: target.rules,
          owner: request.owner,
          nameEncoding: request.nameEncoding,
          remote: request.remote,
        }),
        lazy: { ...facts, ...centralFileFacts(central) },
      };
      keepBaseAtOpen(zipPath, staging, source); // for a merge by lines after another writer replaced the zip
      return publishOnce(request, staging, record, []);
    });
  } finally {
    source.close();
  }
  const session = publishedSession(request.home, published);
  const warned = (opened: Opened): Opened =>
    warning && !session.shared ? { ...opened, nameWarning: warning } : opened;
  // A session another open of the zip made meanwhile is answered as it is, as an open after it would be.
  if ((!request.only?.length && !request.allButLocked) || session.shared) return warned(session);
  // The entries asked for, extracted into the new session; if that fails, there is no session (open made nothing).
  try {
    const lazy = lazyEntries(session)!;
    const chosen = request.allButLocked ? unlockedIndexes(lazy) : matchEntries(lazy, request.only!);
    await withSessionLock(
      session,
      'open',
      () =>
        extractEntries({
          session,
          lazy,
          indexes: chosen,
          home: request.home,
          limits: request.limits,
          signal: request.signal,
        }),
      { waitMs: 0 },
    );
    return warned(loadSession(request.home, published.name)!);
  } catch (error) {
    removeSession(session);
    throw error;
  }
}
