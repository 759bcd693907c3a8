/**
 * A new archive written to S3 as a multipart upload whose unchanged runs are copied on the server
 * (UploadPartCopy with x-amz-copy-source-range, on the condition the old object is still the
 * version read), and completed with If-Match on that version: syncing one changed entry of a big
 * archive sends about that entry plus the minimum part sizes (s3-parts.ts). A failed upload is
 * aborted, so no parts are left to pay for.
 */
import { ZipfsError } from '../base/errors.ts';
import { call, failure, remoteChanged, transferred } from './http-client.ts';
import { s3Place } from './s3-sign.ts';
import type { Part } from './s3-parts.ts';

/** `url` with the query parameters of a multipart request (the endpoint kept). */
function withQuery(url: string, query: Record<string, string>): string {
  const made = new URL(url);
  for (const [key, value] of Object.entries(query)) made.searchParams.set(key, value);
  return made.href;
}

/** The text of `<tag>` in an S3 XML answer, entities decoded. */
function xmlValue(xml: string, tag: string): string | undefined {
  const found = xml.match(new RegExp(`<${tag}>([^<]*)</${tag}>`))?.[1];
  return found
    ?.replace(/&quot;/g, '"')
    .replace(/&amp;/g, '&')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>');
}

/** Uploads `file` to `url` in `parts`, if the object is still `etag`; answers the new ETag and the bytes sent. */
export async function multipartUpload(
  url: string,
  file: string,
  options: { etag: string; parts: readonly Part[]; signal?: AbortSignal },
): Promise<{ etag: string; sent: number }> {
  const { etag, signal } = options;
  const before = transferred.sent;
  const started = await call({ method: 'POST', url: withQuery(url, { uploads: '' }), signal });
  if (started.status !== 200) throw failure(started, url, 'starting a multipart upload');
  const uploadId = xmlValue(await started.text(), 'UploadId');
  if (!uploadId) throw unexpected(url, 'no upload id');
  const place = s3Place(url);
  const source = `/${place.bucket}/${place.key.split('/').map(encodeURIComponent).join('/')}`;
  try {
    const tags: string[] = [];
    for (const [index, part] of options.parts.entries()) {
      const partUrl = withQuery(url, { partNumber: String(index + 1), uploadId });
      const copied = part.from !== undefined;
      const response = await call({
        method: 'PUT',
        url: partUrl,
        headers: copied
          ? {
              'x-amz-copy-source': source,
              'x-amz-copy-source-range': `bytes=${part.from}-${part.from! + (part.end - part.start) - 1}`,
              'x-amz-copy-source-if-match': etag,
            }
          : { 'Content-Length': String(part.end - part.start) },
        body: copied ? undefined : Bun.file(file).slice(part.start, part.end),
        signal,
      });
      if (response.status === 412) throw remoteChanged(url, etag);
      if (response.status !== 200) throw failure(response, url, 'a part of the upload');
      const tag = copied ? xmlValue(await response.text(), 'ETag') : response.headers.get('etag');
      if (!copied) void response.body?.cancel();
      if (!tag) throw unexpected(url, 'a part without an ETag');
      tags.push(tag);
    }
    const body = `<CompleteMultipartUpload>${tags
      .map((tag, i) => `<Part><PartNumber>${i + 1}</PartNumber><ETag>${tag.replace(/"/g, '&quot;')}</ETag></Part>`)
      .join('')}</CompleteMultipartUpload>`;
    const done = await call({
      method: 'POST',
      url: withQuery(url, { uploadId }),
      headers: { 'If-Match': etag, 'Content-Type': 'application/xml' },
      body: new TextEncoder().encode(body),
      signal,
    });
    if (done.status === 412) throw remoteChanged(url, etag);
    const answer = await done.text();
    // S3 may answer 200 and put the failure in the body.
    if (done.status !== 200 || answer.includes('<Error>')) {
      if (xmlValue(answer, 'Code') === 'PreconditionFailed') throw remoteChanged(url, etag);
      throw unexpected(url, `completing the upload: ${xmlValue(answer, 'Code') ?? done.status}`);
    }
    const made = xmlValue(answer, 'ETag');
    return { etag: made ?? '', sent: transferred.sent - before };
  } catch (error) {
    await call({ method: 'DELETE', url: withQuery(url, { uploadId }), retry: false })
      .then((response) => response.body?.cancel())
      .catch(() => undefined); // the store's lifecycle rules clear what is left
    throw error;
  }
}

function unexpected(url: string, what: string): ZipfsError {
  return new ZipfsError(
    'SYNC_FAILED',
    `The S3 store at ${new URL(url).host} answered the upload unexpectedly (${what}); the archive there is ` +
      'unchanged. Try again later.',
  );
}
