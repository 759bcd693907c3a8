/**
 * A remote session's sync (DESIGN.md, "Remote stores"). Before: the mirror is made the object as
 * it is now on the server. On S3, while that is still the session's version, nothing more is
 * fetched: what the new archive copies and the mirror lacks is copied on the server
 * (remote/server-copies.ts). Otherwise it is made whole (a PUT sends the whole new archive, and a
 * merge reads the other writer's entries): a newer version replaces the mirror, and the local check
 * then sees another writer's change, as it would in a local zip (CONFLICT_DETECTED, or a merge). At
 * the end, before the rename: the new archive is uploaded on the condition that the server still
 * has the version it was made from (remote/upload.ts); only then does it replace the mirror.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureRanges, readState, writeState } from '../remote/mirror.ts';
import { mirrorRemote } from '../remote/remote-open.ts';
import { isS3, remoteChanged } from '../remote/http-client.ts';
import { ServerCopies, fetchLocalHeaders } from '../remote/server-copies.ts';
import { readPackedDirectory, FileSource } from '../zip/index.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';
import { uploadArchive } from '../remote/upload.ts';
import type { RemoteFacts } from '../remote/remote-url.ts';
import type { SessionRecord } from '../session/manifest.ts';

/**
 * The mirror of a remote session's archive made the server's version now: on S3, still the session's version, as it
 * is (answered: the copies to note as the new archive is written); otherwise every byte present.
 */
export async function refreshRemote(record: SessionRecord, signal?: AbortSignal): Promise<ServerCopies | undefined> {
  if (!record.remote) return undefined;
  const mirror = record.source_path;
  const { facts } = await mirrorRemote(record.remote.url, path.dirname(mirror), { signal });
  const state = readState(mirror);
  if (isS3(facts.url) && facts.etag === record.remote.etag && state?.etag === facts.etag)
    return new ServerCopies(state.ranges);
  await ensureRanges(mirror, [[0, facts.size]], { etag: facts.etag, signal });
  return undefined;
}

/**
 * The local headers of the entries a sync rewrites (modified, renamed: written with their local extra fields), where
 * the mirror lacks them: the rest of what the writer reads of the old archive is its directory.
 */
export async function fetchRewritten(record: SessionRecord, diff: WorkspaceDiff, signal?: AbortSignal) {
  const indexes = [...diff.states].filter(([, state]) => state === 'modified' || state === 'renamed');
  if (indexes.length === 0) return;
  const source = new FileSource(record.source_path);
  let offsets: number[];
  try {
    const directory = readPackedDirectory(source, record.name_encoding);
    offsets = indexes.filter(([i]) => i < directory.count).map(([i]) => directory.localHeaderOffset(i));
  } finally {
    source.close();
  }
  await fetchLocalHeaders(record.source_path, offsets, { etag: record.remote!.etag, signal });
}

export interface RemoteWrite {
  remote: RemoteFacts;
  bytes_sent: number;
  backup?: string;
}

/**
 * Uploads `temporary` (the new archive, verified) in place of the version the mirror holds, and records it as the
 * mirror-to-be (the temporary's inode: the rename makes it the mirror).
 */
export async function uploadRemote(
  record: SessionRecord,
  temporary: string,
  options: { backup: boolean; signal?: AbortSignal; copies?: ServerCopies },
): Promise<RemoteWrite> {
  const { url } = record.remote!;
  const mirror = record.source_path;
  const state = readState(mirror);
  if (!state) throw remoteChanged(url, record.remote!.etag);
  const up = await uploadArchive(url, temporary, { etag: state.etag, base: mirror, ...options });
  const { ino, size } = fs.statSync(temporary);
  // Sparse where the server copied what was never fetched: those ranges are not there, and a read fetches them.
  const ranges = options.copies?.presentIn(size) ?? [[0, size]];
  writeState(mirror, { ino, size, etag: up.etag, url, ranges });
  return { remote: { url, etag: up.etag, size }, bytes_sent: up.sent, ...(up.backup ? { backup: up.backup } : {}) };
}
