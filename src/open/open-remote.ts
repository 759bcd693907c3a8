/**
 * `open https://host/a.zip`: a remote archive opens as a lazy session of its local mirror
 * (remote/mirror.ts), kept in the data folder's `remote` folder, one per URL; only the central
 * directory is fetched now, and later calls fetch the entries they read. With `download`, the
 * whole object is fetched (and the session is eager unless lazy is asked).
 */
import path from 'node:path';
import { ZipfsError } from '../base/errors.ts';
import { mirrorRemote } from '../remote/remote-open.ts';
import { isRemote, mirrorName, remoteUrl } from '../remote/remote-url.ts';
import type { OpenRequest } from './open-request.ts';

/** Where a data folder keeps its mirrors of remote archives. */
export function remoteFolder(home: string): string {
  return path.join(home, 'remote');
}

/** The file a session of `input` reads: the mirror for a URL, else the path itself. */
export function localPathOf(home: string, input: string, endpoint?: string): string {
  return isRemote(input) ? path.join(remoteFolder(home), mirrorName(urlOf(input, endpoint))) : input;
}

/** The URL a session records: an S3 one with the endpoint it was opened with (no credentials in either). */
function urlOf(input: string, endpoint: string | undefined): string {
  const url = remoteUrl(input);
  if (endpoint && url.protocol === 's3:') url.searchParams.set('endpoint', remoteUrl(endpoint).href);
  return url.href;
}

/** The open of a URL as the open of its mirror, made ready (its directory, or all of it with download). */
export async function remoteRequest(request: OpenRequest): Promise<OpenRequest> {
  if (request.create)
    throw new ZipfsError(
      'INVALID_INPUT',
      'create makes a new archive at a local path; a remote archive must exist already (upload an empty zip first).',
    );
  const url = urlOf(request.zipPath, request.endpoint);
  const { mirror, facts } = await mirrorRemote(url, remoteFolder(request.home), {
    download: request.download,
    signal: request.signal,
  });
  return { ...request, zipPath: mirror, remote: facts, lazy: request.lazy || !request.download };
}
