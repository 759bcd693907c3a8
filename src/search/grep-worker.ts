/**
 * grep's worker: runs the regular expression over files. It lives in its own
 * thread because a JavaScript regex cannot be interrupted: a pathological
 * pattern is stopped by terminating this worker, never by hanging the server.
 */
import fs from 'node:fs';
import { Beneath } from '../files/beneath.ts';
import { shortenAround as cut } from '../files/shorten-diff-lines.ts';
import { openRegularFile } from '../files/regular-file.ts';
import { binaryMatch, grepText } from './file-text.ts';
import type { GrepJob, GrepMatch, GrepMessage } from './grep-types.ts';

/** A listed file's bytes, reached without links and only if it is still a regular file (never a FIFO that would block). */
function readBeneath(beneath: Beneath, file: string): Buffer {
  beneath.keepFoldersOf(file); // files come sorted: keep only the folders on the way to this one
  const { fd } = openRegularFile(beneath.place(file).path, file);
  try {
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

function post(message: GrepMessage): void {
  postMessage(message);
}

function run(job: GrepJob, beneath: Beneath): void {
  const regex = new RegExp(job.pattern, job.flags);
  let pending: GrepMatch[] = [];
  let total = 0;
  let filesSearched = 0;
  let skippedBinary = 0;
  let lastPost = Date.now();
  const flush = () => {
    post({ kind: 'matches', matches: pending, total, filesSearched, skippedBinary });
    pending = [];
    lastPost = Date.now();
  };
  /** Records a match; returns true when the search may stop. */
  const found = (match: GrepMatch): boolean => {
    total++;
    if (total <= job.maxResults) pending.push(match);
    return total > job.maxResults && !job.countAll;
  };

  for (const file of job.files) {
    // Hand over what was found before each file: the next one may be where a pattern hangs.
    if (pending.length > 0 || Date.now() - lastPost > 50) flush();
    if (job.namesOnly) {
      filesSearched++;
      if (regex.test(file) && found({ file, line_number: 0, line_content: file })) return finish(true);
      continue;
    }
    let bytes: Buffer;
    try {
      bytes = readBeneath(beneath, file);
    } catch {
      continue; // removed, or swapped for a link or a special file, while we searched
    }
    filesSearched++;
    const text = grepText(bytes, job.encoding);
    if (text === undefined) {
      if (!job.binary) {
        skippedBinary++;
        continue;
      }
      const hit = binaryMatch(bytes, regex);
      if (hit && found({ file, line_number: 0, line_content: cut(hit.text), byte_offset: hit.offset })) return finish(true);
      continue;
    }
    const lines = text.split('\n');
    if (lines.at(-1) === '') lines.pop();
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
      const hit = regex.exec(line);
      if (!hit) continue;
      const match: GrepMatch = { file, line_number: i + 1, line_content: cut(line, hit.index) };
      if (job.contextLines > 0) {
        const strip = (l: string) => cut(l.endsWith('\r') ? l.slice(0, -1) : l);
        match.context_before = lines.slice(Math.max(0, i - job.contextLines), i).map(strip);
        match.context_after = lines.slice(i + 1, i + 1 + job.contextLines).map(strip);
      }
      if (found(match)) return finish(true);
    }
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
