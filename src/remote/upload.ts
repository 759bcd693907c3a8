/**
 * Writing a remote archive back: the new archive is PUT whole with `If-Match` on the ETag of the
 * version it was made from, so the store itself refuses it (412) when another writer got there
 * first: zipfs's CONFLICT_DETECTED, and a sync with merge works as it does locally. A 409 (a write
 * in flight) is tried again a bounded number of times. The previous version is kept first as
 * `<url>.bak` by a WebDAV COPY, made on the same condition.
 */
import fs from 'node:fs';
import { ZipfsError } from '../base/errors.ts';
import { TRIES, call, failure, isS3, remoteChanged, strongEtag, transferred } from './http-client.ts';
import { s3Place } from './s3-sign.ts';
import { copiesAny, copyRuns, planParts } from './s3-parts.ts';
import { multipartUpload } from './s3-multipart.ts';
import { shown } from './remote-url.ts';
import type { ServerCopies } from './server-copies.ts';

export interface Uploaded {
  /** The new version's ETag ('' when the server would not say which it is: the next sync is then a conflict). */
  etag: string;
  /** Bytes of archive sent. */
  sent: number;
  /** Where the previous version is kept (no credentials), when it was kept. */
  backup?: string;
}

/** PUTs `file` to `url` if the object there is still `etag`; keeps the old one as `<url>.bak` first with `backup`. */
export async function uploadArchive(
  url: string,
  file: string,
  options: { etag: string; backup: boolean; signal?: AbortSignal; base?: string; copies?: ServerCopies },
): Promise<Uploaded> {
  // Apache checks If-Match and writes in two steps: two PUTs on the same ETag at once may both pass. Under the
  // server's exclusive write lock (WebDAV LOCK), the check, the write and the new ETag's read are one step.
  const token = await lockOn(url, options.signal);
  try {
    return await uploadLocked(url, file, { ...options, token });
  } finally {
    if (token) await unlock(url, token);
  }
}

async function uploadLocked(
  url: string,
  file: string,
  options: {
    etag: string;
    backup: boolean;
    signal?: AbortSignal;
    token?: string;
    base?: string;
    copies?: ServerCopies;
  },
): Promise<Uploaded> {
  const { etag, copies, signal } = options;
  const size = fs.statSync(file).size;
  const backup = options.backup ? await copyToBackup(url, etag, signal) : undefined;
  // S3: what is unchanged is copied on the server (s3-multipart.ts): the copies the writer noted (server-copies.ts),
  // or, with the old version whole at hand (`base`), the runs found in it byte for byte.
  const runs = copies?.runs ?? (options.base ? copyRuns(file, options.base) : undefined);
  const parts = isS3(url) && runs ? planParts(size, runs) : [];
  // The holes the writer left where bytes are sent (all of them for a PUT) are fetched now, from the old version.
  await copies?.fill(file, copiesAny(parts) ? parts : [{ start: 0, end: size }], { url, etag, signal });
  if (copiesAny(parts)) {
    const done = await multipartUpload(url, file, { etag, parts, signal: options.signal });
    return { ...done, ...(backup ? { backup } : {}) };
  }
  const before = transferred.sent;
  const ours = lastBytes(file, 4096);
  const locked: Record<string, string> = options.token ? { If: `(${options.token})` } : {};
  for (let attempt = 1; ; attempt++) {
    const response = await call({
      method: 'PUT',
      url,
      // A length, not chunks: S3 takes no chunked PUT (and what it was not told the size of, it may store empty).
      headers: { 'If-Match': etag, 'Content-Type': 'application/zip', 'Content-Length': String(size), ...locked },
      body: Bun.file(file),
      signal: options.signal,
    });
    void response.body?.cancel();
    if (response.status === 412) throw remoteChanged(url, etag);
    if (response.status === 409 && attempt < TRIES) {
      await Bun.sleep(300 * attempt);
      continue;
    }
    if (response.status >= 300) throw uploadFailure(response, url);
    const sent = transferred.sent - before;
    const told = strongEtag(response);
    return { etag: told ?? (await etagOfOurs(url, ours, options.signal)), sent, ...(backup ? { backup } : {}) };
  }
}

/** The previous version copied on the server to `<url>.bak` (overwriting an older backup), if it is still `etag`. */
async function copyToBackup(url: string, etag: string, signal?: AbortSignal): Promise<string> {
  const bak = new URL(url);
  bak.pathname += '.bak';
  const target = bak.href;
  // S3: CopyObject (a PUT naming its source), on the same condition; WebDAV: COPY.
  const place = isS3(url) ? s3Place(url) : undefined;
  const response = await call(
    place
      ? {
          method: 'PUT',
          url: target,
          headers: {
            'x-amz-copy-source': `/${place.bucket}/${place.key.split('/').map(encodeURIComponent).join('/')}`,
            'x-amz-copy-source-if-match': etag,
          },
          signal,
        }
      : { method: 'COPY', url, headers: { Destination: target, Overwrite: 'T', 'If-Match': etag }, signal },
  );
  void response.body?.cancel();
  if (response.status === 412) throw remoteChanged(url, etag);
  if (response.status === 405 || response.status === 501)
    throw new ZipfsError(
      'SYNC_FAILED',
      `${shown(url)} does not copy on the server (${response.status}: not WebDAV), so the previous version cannot be ` +
        'kept as a backup there; sync with backup off to replace it without one. Nothing was written.',
    );
  if (response.status >= 300) throw uploadFailure(response, url);
  return shown(target);
}

/**
 * The new version's ETag, when the PUT's answer had none: asked by HEAD (again while it is weak), and taken only when
 * the object's last bytes are the archive's just sent (another writer may have replaced it meanwhile).
 */
async function etagOfOurs(url: string, ours: Uint8Array, signal?: AbortSignal): Promise<string> {
  for (let attempt = 0; attempt < 5; attempt++) {
    if (attempt > 0) await Bun.sleep(400);
    const response = await call({ method: 'GET', url, headers: { Range: `bytes=-${ours.length}` }, signal });
    const etag = strongEtag(response);
    const tail = new Uint8Array(await response.arrayBuffer());
    transferred.received += tail.length;
    if (!etag) continue;
    return response.status === 206 && Buffer.compare(tail, ours) === 0 ? etag : '';
  }
  return '';
}

const LOCK_BODY =
  '<?xml version="1.0" encoding="utf-8"?><D:lockinfo xmlns:D="DAV:"><D:lockscope><D:exclusive/></D:lockscope>' +
  '<D:locktype><D:write/></D:locktype><D:owner>zipfs sync</D:owner></D:lockinfo>';

/** How long another writer's lock is waited for (its upload in flight), in tries of growing waits. */
const LOCK_TRIES = 8;

/**
 * The server's exclusive write lock on `url` (its token), for the upload; undefined where the server has no locks (not
 * WebDAV: If-Match alone guards it). Held by another writer: waited for a bounded time, then LOCKED.
 */
async function lockOn(url: string, signal?: AbortSignal): Promise<string | undefined> {
  if (isS3(url)) return undefined; // S3 checks If-Match as it writes: no lock to take
  for (let attempt = 1; attempt <= LOCK_TRIES; attempt++) {
    const response = await call({
      method: 'LOCK',
      url,
      headers: { Timeout: 'Second-120', Depth: '0', 'Content-Type': 'application/xml; charset=utf-8' },
      body: new TextEncoder().encode(LOCK_BODY),
      signal,
    });
    void response.body?.cancel();
    if (response.status === 200 || response.status === 201) return response.headers.get('lock-token') ?? undefined;
    if (response.status === 405 || response.status === 501 || response.status === 400) return undefined;
    if (response.status !== 423) throw uploadFailure(response, url);
    await Bun.sleep(150 * attempt);
  }
  throw new ZipfsError(
    'LOCKED',
    `Another writer holds the server's lock on ${shown(url)} (its upload in flight); sync again in a moment.`,
  );
}

async function unlock(url: string, token: string): Promise<void> {
  try {
    const response = await call({ method: 'UNLOCK', url, headers: { 'Lock-Token': token }, retry: false });
    void response.body?.cancel();
  } catch {
    // The lock times out on the server (Timeout above) if it cannot be given back now.
  }
}

/** The last `count` bytes of `file` (all of a shorter one). */
function lastBytes(file: string, count: number): Uint8Array {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    const bytes = new Uint8Array(Math.min(count, size));
    fs.readSync(fd, bytes, 0, bytes.length, size - bytes.length);
    return bytes;
  } finally {
    fs.closeSync(fd);
  }
}

function uploadFailure(response: Response, url: string): ZipfsError {
  const refused = failure(response, url, 'the upload');
  if (refused.code === 'PERMISSION_DENIED') return refused;
  if (response.status === 413)
    return new ZipfsError(
      'SYNC_FAILED',
      `${shown(url)} refuses an upload this large (413); the archive there is unchanged. Raise the server's limit ` +
        "(Apache's LimitRequestBody is 1 GiB by default, nginx's client_max_body_size 1 MiB), or use S3.",
    );
  return new ZipfsError(
    'SYNC_FAILED',
    `${shown(url)} answered ${response.status} to the upload; the archive there is unchanged (the server ` +
      'refused it whole). Try again later.',
  );
}
