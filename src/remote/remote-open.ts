/**
 * Opening a remote archive: its mirror made ready for a lazy open (open/open-remote.ts). One
 * suffix range read gives the object's size, its ETag and its last bytes (the end records, and for
 * a small archive the whole directory); a second reads the rest of the central directory. With
 * `download`, the whole object is fetched instead (a server that ignores ranges).
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError } from '../base/errors.ts';
import { FileSource } from '../zip/index.ts';
import { readDirectoryEnd } from '../zip/end-of-central-directory.ts';
import { call, failure, strongEtag } from './http-client.ts';
import {
  ensureRanges,
  ignoresRange,
  parseContentRange,
  readState,
  streamInto,
  writeState,
  type MirrorState,
} from './mirror.ts';
import { mirrorName, shown, type RemoteFacts } from './remote-url.ts';

/** The suffix read at open: the end record with the longest comment (64 KiB), the Zip64 records, and some directory. */
export const TAIL_BYTES = 128 << 10;

/** How often an answer with only a weak ETag is asked again (Apache: a file changed within the last second). */
const WEAK_TRIES = 4;

export interface Mirrored {
  /** The mirror file the lazy session reads as its zip. */
  mirror: string;
  facts: RemoteFacts;
}

/** The mirror of `url` in `folder`, its directory present (or all of it with `download`). */
export async function mirrorRemote(
  url: string,
  folder: string,
  options: { download?: boolean; signal?: AbortSignal },
): Promise<Mirrored> {
  fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
  const mirror = path.join(folder, mirrorName(url));
  let response: Response | undefined;
  let etag: string | undefined;
  for (let attempt = 0; attempt < WEAK_TRIES && !etag; attempt++) {
    if (attempt > 0) await Bun.sleep(400);
    void response?.body?.cancel();
    response = await call({ method: 'GET', url, headers: { Range: `bytes=-${TAIL_BYTES}` }, signal: options.signal });
    if (response.status !== 206 && response.status !== 200) throw failure(response, url, 'a read');
    etag = strongEtag(response);
  }
  if (!etag) {
    void response!.body?.cancel();
    throw new ZipfsError(
      'ZIP_INVALID',
      `${shown(url)} gives no strong ETag, so zipfs cannot tell the archive it read from a newer one; open a ` +
        'downloaded copy instead.',
    );
  }
  if (response!.status === 200) {
    if (!options.download) {
      void response!.body?.cancel();
      throw ignoresRange(url);
    }
    const whole = { url, etag, size: Number(response!.headers.get('content-length') ?? Number.NaN) };
    if (!Number.isSafeInteger(whole.size)) throw failure(response!, url, 'a download without its length');
    await freshAsync(mirror, whole, (fd) => streamInto(response!, fd, 0, whole.size));
    writeState(mirror, { ...readState(mirror)!, ranges: [[0, whole.size]] });
    return { mirror, facts: whole };
  }
  const range = parseContentRange(response!.headers.get('content-range'));
  if (!range) throw failure(response!, url, 'a range read');
  const facts = { url, etag, size: range.total };
  const known = readState(mirror);
  let tail: Uint8Array | undefined = new Uint8Array(await response!.arrayBuffer());
  if (known?.etag !== etag || known.size !== range.total || known.url !== url) {
    const bytes = tail;
    await freshAsync(mirror, facts, async (fd) => {
      fs.writeSync(fd, bytes, 0, bytes.length, range.start);
    });
    writeState(mirror, { ...readState(mirror)!, ranges: [[range.start, range.end]] });
    tail = undefined;
  }
  if (tail) {
    const fd = fs.openSync(mirror, 'r+');
    fs.writeSync(fd, tail, 0, tail.length, range.start);
    fs.closeSync(fd);
  }
  if (options.download) await ensureRanges(mirror, [[0, facts.size]], { signal: options.signal });
  else await ensureRanges(mirror, [directoryRange(mirror)], { signal: options.signal });
  return { mirror, facts };
}

/** Where the central directory and the end records are in the mirror (its tail is present). */
function directoryRange(mirror: string): [number, number] {
  const source = new FileSource(mirror);
  try {
    const end = readDirectoryEnd(source);
    return [end.directoryOffset, source.size];
  } finally {
    source.close();
  }
}

/** A new mirror file of the object's size (sparse), filled by `fill`, renamed over `mirror`, with its record. */
async function freshAsync(mirror: string, facts: RemoteFacts, fill: (fd: number) => Promise<unknown>): Promise<void> {
  const temporary = `${mirror}.${process.pid}-${globalThis.crypto.randomUUID()}.tmp`;
  const fd = fs.openSync(temporary, 'w+', 0o600);
  try {
    fs.ftruncateSync(fd, facts.size);
    await fill(fd);
    const state: MirrorState = {
      ino: fs.fstatSync(fd).ino,
      size: facts.size,
      etag: facts.etag,
      url: facts.url,
      ranges: [],
    };
    fs.renameSync(temporary, mirror);
    writeState(mirror, state);
  } catch (error) {
    fs.rmSync(temporary, { force: true });
    throw error;
  } finally {
    fs.closeSync(fd);
  }
}
