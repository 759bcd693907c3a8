/**
 * A remote session's sync (DESIGN.md, "Remote stores"). Before: the mirror is made the object as
 * it is now on the server, whole (a PUT sends the whole new archive, so every byte it copies must
 * be here): a newer version replaces the mirror, and the local check then sees another writer's
 * change, as it would in a local zip (CONFLICT_DETECTED, or a merge). At the end, before the
 * rename: the new archive is uploaded on the condition that the server still has the version it
 * was made from (remote/upload.ts); only then does it replace the mirror.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ensureRanges, readState, writeState } from '../remote/mirror.ts';
import { mirrorRemote } from '../remote/remote-open.ts';
import { remoteChanged } from '../remote/http-client.ts';
import { uploadArchive } from '../remote/upload.ts';
import type { RemoteFacts } from '../remote/remote-url.ts';
import type { SessionRecord } from '../session/manifest.ts';

/** The mirror of a remote session's archive made the server's version now, every byte present. */
export async function refreshRemote(record: SessionRecord, signal?: AbortSignal): Promise<void> {
  if (!record.remote) return;
  const mirror = record.source_path;
  const { facts } = await mirrorRemote(record.remote.url, path.dirname(mirror), { signal });
  await ensureRanges(mirror, [[0, facts.size]], { etag: facts.etag, signal });
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
  options: { backup: boolean; signal?: AbortSignal },
): Promise<RemoteWrite> {
  const { url } = record.remote!;
  const mirror = record.source_path;
  const state = readState(mirror);
  if (!state) throw remoteChanged(url, record.remote!.etag);
  const up = await uploadArchive(url, temporary, { etag: state.etag, base: mirror, ...options });
  const { ino, size } = fs.statSync(temporary);
  writeState(mirror, { ino, size, etag: up.etag, url, ranges: [[0, size]] });
  return { remote: { url, etag: up.etag, size }, bytes_sent: up.sent, ...(up.backup ? { backup: up.backup } : {}) };
}
