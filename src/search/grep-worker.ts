/**
 * grep's worker: runs the regular expression over files. It lives in its own
 * thread because a JavaScript regex cannot be interrupted: a pathological
 * pattern is stopped by terminating this worker, never by hanging the server.
 * Each file is read as a stream of pieces (grep-sources.ts) and searched as it
 * comes (file-search.ts), so memory stays bounded whatever the file's size.
 */
import { toZipfsError } from '../base/errors.ts';
import { Beneath } from '../files/beneath.ts';
import { FileSearch, type FileSink } from './file-search.ts';
import { CHUNK_BYTES, ZipSources, readWorkspaceFile, readZipEntry } from './grep-sources.ts';
import type { GaveUp, GrepJob, GrepMatch, GrepMessage, GrepPlace } from './grep-types.ts';
import { watchedExec } from '../base/regex-give-up.ts';
import { fullJit } from '../base/jit-policy.ts';

// Its loops run over whole files: worth compiling (jit-policy.ts).
fullJit();

/** How often, at most, what was found is handed over while a search runs. */
const POST_EVERY_MS = 50;

function post(message: GrepMessage): void {
  postMessage(message);
}

async function run(job: GrepJob, beneath: Beneath, zips: ZipSources): Promise<void> {
  const regex = new RegExp(job.pattern, `${job.flags}g`);
  let pending: GrepMatch[] = [];
  let total = 0;
  let items = 0;
  let filesSearched = 0;
  let skippedBinary = 0;
  let cutLines = 0;
  let done: GrepPlace | undefined;
  const gaveUp: GaveUp = { count: 0 };
  let lastPost = Date.now();
  const flush = () => {
    post({ kind: 'matches', matches: pending, total, items, filesSearched, skippedBinary, cutLines, gaveUp, done });
    pending = [];
    lastPost = Date.now();
  };
  const full = () => items > job.maxResults && !job.countAll;
  /** One more item (a match, a file, a file's count): true when it is to be kept (within max_results). */
  const take = () => ++items <= job.maxResults;
  const shared = {
    keep: (match: GrepMatch) => void pending.push(match),
    cutLine: () => void cutLines++,
    gaveUp: (file: string, line: number) => {
      gaveUp.count++;
      gaveUp.first ??= { file, line };
    },
    skippedBinary: () => void skippedBinary++,
  };
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);

  for (const item of job.files) {
    // Hand over what was found before each file: the next one may be where a pattern hangs.
    if (pending.length > 0 || Date.now() - lastPost > POST_EVERY_MS) flush();
    const { file } = item;
    if (job.namesOnly) {
      filesSearched++;
      regex.lastIndex = 0;
      const { hit, gaveUp: stopped } = watchedExec(regex, file);
      regex.lastIndex = 0;
      if (stopped) shared.gaveUp(file, 0);
      if (hit && (total++, take())) shared.keep({ file, line_number: 0, line_content: file });
      done = { file, line: 0, column: 0 };
      if (full()) return finish(true);
      continue;
    }
    // This file's matches: for output 'files' the first ends the file, for 'count' they are summed.
    let inFile = 0;
    const sink: FileSink = {
      ...shared,
      count: () => {
        total++;
        if (job.output === 'matches') return take();
        if (++inFile === 1 && job.output === 'files' && take())
          shared.keep({ file, line_number: 0, line_content: file });
        return false;
      },
      full: () => full() || (job.output === 'files' && inFile > 0),
    };
    const search = new FileSearch(file, job, regex, sink, item.from);
    // Where a stop would resume: inside the file only for matches (a count is whole files, a file listed is done).
    const place = (): GrepPlace | undefined => {
      if (job.output === 'count') return done;
      if (job.output === 'files' && inFile > 0) return { file, line: 0, column: 0 };
      const at = search.place();
      return at ? { file, ...at } : done;
    };
    // And as a large file goes: a search stopped by the time budget midway still returns its first matches.
    const feed = (piece: Uint8Array) => {
      const more = search.push(piece);
      if (Date.now() - lastPost > POST_EVERY_MS) {
        done = place();
        flush();
      }
      return more;
    };
    if (item.zip) {
      filesSearched++;
      await readZipEntry(zips.get(item.zip.zipPath, item.zip.zipFd), item.zip.entry, feed);
    } else {
      // removed, or swapped for a link or a special file, while we searched
      if (!readWorkspaceFile(beneath, file, buffer, feed)) continue;
      filesSearched++;
    }
    search.end();
    if (job.output === 'count' && inFile > 0 && take())
      shared.keep({ file, line_number: 0, line_content: file, count: inFile });
    if (full()) return finish(true);
    done = { file, line: 0, column: 0 };
  }
  finish(false);

  function finish(truncated: boolean): void {
    flush();
    post({ kind: 'done', truncated: truncated || items > job.maxResults });
  }
}

// The worker global's onmessage; bun-types declares it only alongside the DOM library.
(globalThis as unknown as { onmessage: (event: MessageEvent<GrepJob>) => Promise<void> }).onmessage = async (event) => {
  const beneath = new Beneath(event.data.root);
  const zips = new ZipSources();
  try {
    await run(event.data, beneath, zips);
  } catch (error) {
    // A zip entry that is a bomb or damaged, or a zip that cannot be opened: the caller gets the ZipfsError itself.
    const { code, message } = toZipfsError(error);
    post({ kind: 'error', code, message });
  } finally {
    zips.close();
    beneath.close();
  }
};
