/**
 * An `s3://bucket/key` request made an HTTP one, signed with AWS Signature Version 4 (our own
 * small signer over node:crypto: the runtime's S3 client reads ranges and ETags, but sends no
 * If-Match on writes). The payload is not hashed (UNSIGNED-PAYLOAD, as S3 allows): an archive
 * is streamed, not read twice.
 */
import { ZipfsError } from '../base/errors.ts';
import { s3Credentials, s3Endpoint, s3Region, type S3Credentials } from './s3-credentials.ts';

export interface S3Place {
  bucket: string;
  key: string;
  /** The endpoint the session was opened with (open's endpoint), kept in the URL's query. */
  endpoint: string | null;
}

/** The bucket, key and endpoint of an `s3://` URL. */
export function s3Place(url: string): S3Place {
  const parsed = new URL(url);
  const key = decodeURIComponent(parsed.pathname.replace(/^\//, ''));
  if (!parsed.hostname || !key)
    throw new ZipfsError('INVALID_INPUT', `Give an S3 archive as s3://BUCKET/KEY (got ${parsed.origin}).`);
  return { bucket: parsed.hostname, key, endpoint: parsed.searchParams.get('endpoint') };
}

/** RFC 3986 encoding, as SigV4 wants it (each path segment; `/` kept between them). */
function encode(text: string): string {
  return encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}

/** The HTTP URL of `key` in `bucket` (`key` '' for the bucket itself). */
export function s3HttpUrl(place: S3Place, key: string = place.key): string {
  const { base, pathStyle } = s3Endpoint(place.bucket, place.endpoint, s3Region());
  const keyPath = key.split('/').map(encode).join('/');
  return pathStyle ? `${base}/${encode(place.bucket)}/${keyPath}` : `${base}/${keyPath}`;
}

// The runtime's hasher, HMAC included: node:crypto imported here would load at every open, local or not (~2 ms).
const hash = (text: string) => new Bun.CryptoHasher('sha256').update(text).digest('hex');
const hmac = (key: string | Buffer, text: string) => new Bun.CryptoHasher('sha256', key).update(text).digest();

/** `headers` with SigV4's (x-amz-date, x-amz-content-sha256, the token, Authorization) for `method` on `httpUrl`. */
export function signS3(
  method: string,
  httpUrl: string,
  headers: Record<string, string>,
  given?: { credentials?: S3Credentials; region?: string; now?: Date; payloadHash?: string },
): Record<string, string> {
  const credentials = given?.credentials ?? s3Credentials();
  const region = given?.region ?? s3Region();
  const url = new URL(httpUrl);
  const stamp = (given?.now ?? new Date())
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}/, '');
  const day = stamp.slice(0, 8);
  const payload = given?.payloadHash ?? 'UNSIGNED-PAYLOAD';
  const signed: Record<string, string> = {
    ...headers,
    'x-amz-date': stamp,
    'x-amz-content-sha256': payload,
    ...(credentials.sessionToken ? { 'x-amz-security-token': credentials.sessionToken } : {}),
  };
  // Signed: the host and every header sent (Range and If-Match too: nothing on the way may change them).
  const names = ['host', ...Object.keys(signed).map((n) => n.toLowerCase())];
  const values = new Map<string, string>([['host', url.host]]);
  for (const [name, value] of Object.entries(signed)) values.set(name.toLowerCase(), value.trim());
  names.sort();
  const query = [...url.searchParams]
    .map(([k, v]) => `${encode(k)}=${encode(v)}`)
    .sort()
    .join('&');
  const canonical = [
    method,
    url.pathname,
    query,
    names.map((n) => `${n}:${values.get(n)}\n`).join(''),
    names.join(';'),
    payload,
  ].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', stamp, scope, hash(canonical)].join('\n');
  let key = hmac(`AWS4${credentials.secretAccessKey}`, day);
  for (const part of [region, 's3', 'aws4_request']) key = hmac(key, part);
  const signature = new Bun.CryptoHasher('sha256', key).update(toSign).digest('hex');
  return {
    ...signed,
    Authorization:
      `AWS4-HMAC-SHA256 Credential=${credentials.accessKeyId}/${scope}, SignedHeaders=${names.join(';')}, ` +
      `Signature=${signature}`,
  };
}
