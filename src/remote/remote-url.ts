/**
 * Where a remote archive is (DESIGN.md, "Remote stores"): an `http(s)://` URL (a plain server that
 * answers ranges, or a WebDAV share that takes PUT and COPY too), or `s3://bucket/key` (the
 * endpoint of an S3-compatible store, when open is given one, kept in the URL's query).
 * Credentials never go in the URL:
 * they come from the environment at each call (http-client.ts), so the URL a session records, and
 * every message that names it, holds none.
 */
import { ZipfsError } from '../base/errors.ts';
import { isUrlPlace } from '../rules/allowed-roots.ts';

/** What a session made from a remote archive records of it: its place, and the version its base is. */
export interface RemoteFacts {
  /** The URL without credentials (none are accepted in it). */
  url: string;
  /** The ETag of the object the session's base is. */
  etag: string;
  size: number;
}

/** Query parameters that carry a credential (presigned S3 and Azure URLs, tokens, keys). */
const SECRET_PARAMETER = /signature|credential|token|secret|password|passwd|^sig$|^key$|api[-_]?key|auth/i;

/** Whether `input` names a remote archive rather than a local path: the test the MCP server's roots judge it by. */
export const isRemote: (input: string) => boolean = isUrlPlace;

/** `input` as a URL zipfs can use; one with a user or password in it is refused, naming where they go instead. */
export function remoteUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new ZipfsError(
      'INVALID_INPUT',
      `${shown(input)} is not a URL zipfs can read; give an http(s):// or s3:// URL.`,
    );
  }
  if (url.username || url.password)
    throw new ZipfsError(
      'INVALID_INPUT',
      `Give the URL without a user or password in it (${shown(input)}): set ZIPFS_HTTP_USER and ZIPFS_HTTP_PASSWORD ` +
        '(or ZIPFS_HTTP_TOKEN) in the environment instead, so they never reach a session record or a log.',
    );
  url.hash = '';
  // A presigned URL's query is a credential: the session would have to record it. Refused, before any request.
  const secret = [...url.searchParams.keys()].find((key) => SECRET_PARAMETER.test(key));
  if (secret)
    throw new ZipfsError(
      'INVALID_INPUT',
      `The URL's query holds a credential (${secret}), which a session would have to record; give the URL without ` +
        'it and the credentials in the environment (ZIPFS_HTTP_TOKEN, or ZIPFS_HTTP_USER and ZIPFS_HTTP_PASSWORD; ' +
        'for S3, s3://BUCKET/KEY with the AWS variables).',
    );
  if (url.protocol === 's3:' && (!url.hostname || url.pathname.length < 2))
    throw new ZipfsError('INVALID_INPUT', `Give an S3 archive as s3://BUCKET/KEY (got ${shown(input)}).`);
  return url;
}

/** A URL as messages show it: no user, no password, no query (a presigned query is a credential). */
export function shown(input: string): string {
  try {
    const url = new URL(input);
    url.username = '';
    url.password = '';
    url.search = '';
    url.hash = '';
    return url.href;
  } catch {
    return input.replace(/\/\/[^/@]*@/, '//').replace(/[?#].*$/, '');
  }
}

/** The mirror's file name for `url`: one per URL in a data folder (a hash: a URL is no file name). */
export function mirrorName(url: string): string {
  // The runtime's hasher: importing node:crypto here would load it at every open, local or not (~2 ms).
  return `${new Bun.CryptoHasher('sha256').update(url).digest('hex').slice(0, 32)}.zip`;
}
