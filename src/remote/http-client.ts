/**
 * The one door to remote stores: every request zipfs makes goes through `call`, which adds the
 * credentials from the environment (never from a URL or a record), bounds each request by a timeout,
 * retries what is safe to retry a bounded number of times, and counts what went over the wire (the
 * sync answer says the bytes sent). Errors name the URL without credentials or query, and never
 * quote what the server or the runtime said about the request (a header could hold a credential).
 */
import fs from 'node:fs';
import { ZipfsError } from '../base/errors.ts';
import { shown } from './remote-url.ts';
import { s3HttpUrl, s3Place, signS3 } from './s3-sign.ts';

/** What went over the wire since the process began (a sync answers what it sent). */
export const transferred = { requests: 0, received: 0, sent: 0 };

/** Tries per request, for a network failure or a 5xx on a request that may be repeated. */
export const TRIES = 3;

function timeoutMs(): number {
  const value = Number(process.env.ZIPFS_REMOTE_TIMEOUT_MS);
  return Number.isFinite(value) && value > 0 ? value : 60_000;
}

/** ZIPFS_HTTP_TOKEN (a bearer token), or ZIPFS_HTTP_USER and ZIPFS_HTTP_PASSWORD (Basic). */
function authorization(): Record<string, string> {
  const token = process.env.ZIPFS_HTTP_TOKEN;
  if (token) return { Authorization: `Bearer ${token}` };
  const user = process.env.ZIPFS_HTTP_USER;
  if (user === undefined) return {};
  const pair = `${user}:${process.env.ZIPFS_HTTP_PASSWORD ?? ''}`;
  return { Authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

/** ZIPFS_CA_FILE: a CA the server's certificate is checked against, besides the system's (NODE_EXTRA_CA_CERTS too). */
function tlsOptions(): { tls?: { ca: string } } {
  const file = process.env.ZIPFS_CA_FILE;
  if (!file) return {};
  try {
    return { tls: { ca: fs.readFileSync(file, 'utf8') } };
  } catch (error) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `ZIPFS_CA_FILE names ${file}, which cannot be read (${(error as NodeJS.ErrnoException).code}); fix or unset it.`,
    );
  }
}

/** The HTTP request for `request`: an s3:// one addressed and signed (s3-sign.ts), another with its credentials. */
function prepared(request: Call): { url: string; headers: Record<string, string> } {
  if (!isS3(request.url)) return { url: request.url, headers: { ...request.headers, ...authorization() } };
  // The request's own query (a multipart upload's) goes with it; the endpoint is where, not what.
  const made = new URL(s3HttpUrl(s3Place(request.url)));
  for (const [key, value] of new URL(request.url).searchParams)
    if (key !== 'endpoint') made.searchParams.set(key, value);
  const url = made.href;
  return { url, headers: signS3(request.method, url, request.headers ?? {}) };
}

export function isS3(url: string): boolean {
  return url.startsWith('s3://');
}

export interface Call {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: Blob | Uint8Array;
  /** Whether a network failure or a 5xx may be tried again (a GET, a HEAD; a conditional PUT is also safe). */
  retry?: boolean;
  signal?: AbortSignal;
}

/** One request, with credentials, timeout and bounded retries; answers the server's response, whatever its status. */
export async function call(request: Call): Promise<Response> {
  const tries = request.retry === false ? 1 : TRIES;
  let reason = '';
  for (let attempt = 1; attempt <= tries; attempt++) {
    const timeout = AbortSignal.timeout(timeoutMs());
    // Signed at each try: a signature holds the time it was made.
    const { url, headers } = prepared(request);
    try {
      const response = await fetch(url, {
        method: request.method,
        headers,
        body: request.body,
        signal: request.signal ? AbortSignal.any([request.signal, timeout]) : timeout,
        // Not followed: credentials must not go to a host the user did not name (failure() says where to look).
        redirect: 'manual',
        ...tlsOptions(),
      } as RequestInit);
      transferred.requests++;
      transferred.sent += request.body ? (request.body instanceof Blob ? request.body.size : request.body.length) : 0;
      if (response.status < 500 || attempt === tries) return response;
      reason = `the server answered ${response.status}`;
      await response.body?.cancel();
    } catch (error) {
      if (request.signal?.aborted) throw error;
      // The runtime's message may quote the request: only its kind is said.
      const { code, name } = error as { code?: string; name?: string };
      reason = timeout.aborted ? `no answer within ${timeoutMs()} ms` : (code ?? name ?? 'network error');
    }
    if (attempt < tries) await Bun.sleep(200 * 2 ** (attempt - 1));
  }
  throw new ZipfsError(
    'ZIP_NOT_FOUND',
    `${shown(request.url)} cannot be reached (${reason}, ${tries} tries); check the URL and the network ` +
      '(ZIPFS_REMOTE_TIMEOUT_MS sets the time a request may take; ZIPFS_CA_FILE a CA for a private certificate).',
  );
}

/** The error for an answer zipfs did not expect: access refused, missing, or anything else, by status. */
export function failure(response: Response, url: string, doing: string): ZipfsError {
  void response.body?.cancel();
  const where = shown(url);
  if ((response.status === 401 || response.status === 403) && isS3(url))
    return new ZipfsError(
      'PERMISSION_DENIED',
      `${where} refused ${doing} (${response.status}): check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (or the ` +
        'AWS_PROFILE in ~/.aws/credentials), AWS_REGION, and that the keys may do this.',
    );
  if (response.status === 401 || response.status === 403)
    return new ZipfsError(
      'PERMISSION_DENIED',
      `${where} refused ${doing} (${response.status}): set the credentials in ZIPFS_HTTP_USER and ` +
        'ZIPFS_HTTP_PASSWORD ' +
        '(or ZIPFS_HTTP_TOKEN), and check that they may do this.',
    );
  if (response.status >= 300 && response.status < 400)
    return new ZipfsError(
      'ZIP_NOT_FOUND',
      `${where} redirects elsewhere (${response.status}); zipfs does not follow redirects, so that credentials go ` +
        'only where you send them: open the URL it redirects to.',
    );
  if (response.status === 404 || response.status === 410)
    return new ZipfsError('ZIP_NOT_FOUND', `No archive at ${where} (${response.status}); check the URL.`);
  return new ZipfsError(
    'ZIP_NOT_FOUND',
    `${where} answered ${response.status} to ${doing}; zipfs cannot use this answer. Try again later.`,
  );
}

/** A remote archive that is no longer the version read: nothing of the new one was mixed in. */
export function remoteChanged(url: string, etag: string): ZipfsError {
  return new ZipfsError(
    'CONFLICT_DETECTED',
    `The archive at ${shown(url)} changed on the server since this session read it (its ETag is no longer ${etag}); ` +
      'nothing of the new version was mixed in. Sync with merge to keep both sides, or close the session and open ' +
      'the URL again.',
  );
}

/** An ETag that can be matched: Apache gives a weak one (W/) for a file changed within the last second. */
export function strongEtag(response: Response): string | undefined {
  const etag = response.headers.get('etag');
  return etag && !etag.startsWith('W/') ? etag : undefined;
}
