/**
 * grep's worker: runs the regular expression over files. It lives in its own
 * thread because a JavaScript regex cannot be interrupted: a pathological
 * pattern is stopped by terminating this worker, never by hanging the server.
 * Each file is read as a stream of pieces (grep-sources.ts) and searched as it
 * comes (file-search.ts), so memory stays bounded whatever the file's size.
 */
import { Beneath } from '../files/beneath.ts';
import { FileSearch, type FileSink } from './file-search.ts';
import { CHUNK_BYTES, readWorkspaceFile } from './grep-sources.ts';
import type { GrepJob, GrepMatch, GrepMessage } from './grep-types.ts';

/** How often, at most, what was found is handed over while a search runs. */
const POST_EVERY_MS = 50;

function post(message: GrepMessage): void {
  postMessage(message);
}

function run(job: GrepJob, beneath: Beneath): void {
  const regex = new RegExp(job.pattern, job.flags);
  let pending: GrepMatch[] = [];
  let total = 0;
  let filesSearched = 0;
  let skippedBinary = 0;
  let cutLines = 0;
  let lastPost = Date.now();
  const flush = () => {
    post({ kind: 'matches', matches: pending, total, filesSearched, skippedBinary, cutLines });
    pending = [];
    lastPost = Date.now();
  };
  const sink: FileSink = {
    count: () => ++total <= job.maxResults,
    full: () => total > job.maxResults && !job.countAll,
    keep: (match) => void pending.push(match),
    cutLine: () => void cutLines++,
    skippedBinary: () => void skippedBinary++,
  };
  const buffer = Buffer.allocUnsafe(CHUNK_BYTES);

  for (const file of job.files) {
    // Hand over what was found before each file: the next one may be where a pattern hangs.
    if (pending.length > 0 || Date.now() - lastPost > POST_EVERY_MS) flush();
    if (job.namesOnly) {
      filesSearched++;
      if (regex.test(file) && sink.count()) sink.keep({ file, line_number: 0, line_content: file });
      if (sink.full()) return finish(true);
      continue;
    }
    const search = new FileSearch(file, job, regex, sink);
    // And as a large file goes: a search stopped by the time budget midway still returns its first matches.
    const take = (piece: Uint8Array) => {
      const more = search.push(piece);
      if (Date.now() - lastPost > POST_EVERY_MS) flush();
      return more;
    };
    if (!readWorkspaceFile(beneath, file, buffer, take)) continue; // removed, or swapped for a link or a special file, while we searched
    filesSearched++;
    search.end();
    if (sink.full()) return finish(true);
  }
  finish(false);

  function finish(truncated: boolean): void {
    flush();
    post({ kind: 'done', truncated: truncated || total > job.maxResults });
  }
}

// The worker global's onmessage; bun-types declares it only alongside the DOM library.
(globalThis as unknown as { onmessage: (event: MessageEvent<GrepJob>) => void }).onmessage = (event) => {
  const beneath = new Beneath(event.data.root);
  try {
    run(event.data, beneath);
  } finally {
    beneath.close();
  }
};
