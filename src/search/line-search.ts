/**
 * grep's search of a text file, line by line, as its decoded text streams in:
 * memory stays near one piece of text, a few context lines and one line,
 * whatever the file's size.
 *
 * Lines are what `text.split('\n')` gives (a last empty one dropped), one
 * trailing CR removed, numbered from 1. context_before comes from a ring of the
 * last N lines (kept already cut to display length), context_after by feeding
 * the next N lines to the matches still waiting for them, which are handed on
 * in order once complete, so a match is never reported half built. Every
 * match in a line is one match, with its column and its own window of the
 * line (one-line XML parts hold dozens).
 *
 * The cap: a line longer than LINE_CAP_CHARS (16 Mi characters, far beyond
 * minified code or one-line JSON an agent would read) is searched in its first
 * LINE_CAP_CHARS characters only; the rest is skipped to its end, the shown
 * line counts it in its "more chars" mark, and the search notes how many lines
 * were cut. Holding every line whole would let one 1 GiB line take gigabytes.
 */
import { shortenAround as cut } from '../files/shorten-diff-lines.ts';
import { watchedExec } from '../base/regex-give-up.ts';
import type { GrepMatch, LinePlace } from './grep-types.ts';

export const LINE_CAP_CHARS = 16 * 1024 * 1024;

/** Empty matches passed over in one line before it is left: `\b` or `x*` on a long line would try every place. */
const MAX_EMPTY_SKIPS = 10_000;

/** From this length on, the shown part of a line is copied (own). */
const COPY_FROM_CHARS = 64 * 1024;

/**
 * `shown`, cut from `line`, as a string of its own when the line is long: a
 * slice keeps its whole source string alive (measured in Bun: 40 slices of 500
 * characters held 580 MB), and a kept match or context line may outlive the
 * line by a while. Shorter lines are slices of the decoded piece, which the
 * ring and the matches waiting to be posted (every 50 ms) hold only a few of.
 */
function own(shown: string, line: string): string {
  return line.length < COPY_FROM_CHARS ? shown : Buffer.from(shown, 'utf16le').toString('utf16le');
}

/** Where a search's matches go: shared by every file of one grep. */
export interface MatchSink {
  /** Counts a match; true when it is to be kept (within max_results). */
  count(): boolean;
  /** True once no further match is wanted (max_results passed without count_all). */
  full(): boolean;
  /** A kept match, complete with its context. */
  keep(match: GrepMatch): void;
  /** A line was searched in its first LINE_CAP_CHARS characters only. */
  cutLine(): void;
  /**
   * The regex engine gave up on this place (regex-give-up.ts): a match there may be missed. Line 0 is the file as a
   * whole.
   */
  gaveUp(file: string, line: number): void;
}

export class LineSearch {
  private lineNumber = 0;
  /** The current line's pieces so far, up to LINE_CAP_CHARS characters. */
  private parts: string[] = [];
  private kept = 0;
  /** Characters of the current line past LINE_CAP_CHARS, not kept. */
  private dropped = 0;
  /** Whether the last character of the current line seen so far is a CR (it may have been dropped). */
  private endsWithCR = false;
  /** The last contextLines lines, cut for display. */
  private readonly before: string[] = [];
  /** Kept matches still taking context_after lines, oldest first. */
  private readonly waiting: GrepMatch[] = [];
  private stopped = false;
  private globalRegex: RegExp | undefined;

  constructor(
    private readonly file: string,
    /** With the g flag: each line's matches are found in turn from lastIndex. */
    private readonly regex: RegExp,
    private readonly contextLines: number,
    private readonly sink: MatchSink,
    /** Resume here: what a previous page gave is skipped. */
    private readonly from?: LinePlace,
  ) {}

  /** Takes the next piece of text; false once nothing more is wanted from this file. */
  push(text: string): boolean {
    let from = 0;
    while (!this.stopped) {
      const newline = text.indexOf('\n', from);
      if (newline < 0) {
        this.append(text.slice(from));
        break;
      }
      if (this.parts.length === 0 && newline - from <= LINE_CAP_CHARS) {
        this.line(text.slice(from, newline), 0); // the common case: the line lies whole in this piece
      } else {
        this.append(text.slice(from, newline));
        this.endLine();
      }
      from = newline + 1;
    }
    return !this.stopped;
  }

  /** The text has ended: its last line if it has no newline, then the matches still waiting. */
  end(): void {
    if (!this.stopped && (this.kept > 0 || this.dropped > 0)) this.endLine();
    for (const match of this.waiting) this.sink.keep(match);
    this.waiting.length = 0;
  }

  private append(piece: string): void {
    if (piece.length === 0) return;
    const room = LINE_CAP_CHARS - this.kept;
    if (piece.length <= room) {
      this.parts.push(piece);
      this.kept += piece.length;
    } else {
      if (room > 0) this.parts.push(piece.slice(0, room));
      this.kept += Math.max(0, room);
      this.dropped += piece.length - Math.max(0, room);
    }
    this.endsWithCR = piece.endsWith('\r');
  }

  private endLine(): void {
    const text = this.parts.length === 1 ? this.parts[0]! : this.parts.join('');
    // A dropped trailing CR is not part of the line, as a kept one is not.
    const dropped = this.dropped > 0 && this.endsWithCR ? this.dropped - 1 : this.dropped;
    this.parts = [];
    this.kept = 0;
    this.dropped = 0;
    this.endsWithCR = false;
    if (dropped > 0) this.sink.cutLine();
    this.line(text, dropped);
  }

  /** One line, without its newline; `dropped` characters past it were not kept. */
  private line(raw: string, dropped: number): void {
    this.lineNumber++;
    const line = dropped === 0 && raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    const length = line.length + dropped;
    const shown = this.contextLines > 0 ? own(cut(line, 0, length), line) : '';
    for (const match of this.waiting) match.context_after!.push(shown);
    while (this.waiting.length > 0 && this.waiting[0]!.context_after!.length === this.contextLines)
      this.sink.keep(this.waiting.shift()!);
    if (this.sink.full()) {
      // Past max_results: only the context of the matches already kept is still wanted.
      if (this.waiting.length === 0) this.stopped = true;
      return;
    }
    // A resumed search skips the lines a previous page searched (they still feed context_before).
    if (this.from === undefined || this.lineNumber >= this.from.line) this.search(line, length);
    if (this.contextLines > 0) {
      this.before.push(shown);
      if (this.before.length > this.contextLines) this.before.shift();
    }
    if (this.sink.full() && this.waiting.length === 0) this.stopped = true;
  }

  /**
   * Every match in the line, left to right. An empty match counts only when the line has no other:
   * `^$` finds empty lines once each, and `x*` counts the runs of x, not every place between.
   */
  private search(line: string, length: number): void {
    // Without 'g' exec would find the same first match forever.
    const regex = this.regex.global
      ? this.regex
      : (this.globalRegex ??= new RegExp(this.regex.source, `${this.regex.flags}g`));
    regex.lastIndex = 0;
    let empty: number | undefined;
    let found = false;
    for (let skips = 0; skips < MAX_EMPTY_SKIPS; ) {
      const { hit, gaveUp } = watchedExec(regex, line);
      if (gaveUp) this.sink.gaveUp(this.file, this.lineNumber);
      if (!hit) break;
      if (hit[0] === '') {
        empty ??= hit.index;
        skips++;
        if (hit.index >= line.length) break;
        regex.lastIndex = hit.index + 1;
        continue;
      }
      found = true;
      if (!this.match(line, hit.index, length)) break;
    }
    regex.lastIndex = 0;
    if (!found && empty !== undefined) this.match(line, empty, length);
  }

  /** The match at `index` of the line; false once no further match is wanted from this line. */
  private match(line: string, index: number, length: number): boolean {
    const column = index + 1;
    if (this.from !== undefined && this.lineNumber === this.from.line && column <= this.from.column) return true;
    if (this.sink.count()) {
      const match: GrepMatch = {
        file: this.file,
        line_number: this.lineNumber,
        line_content: own(cut(line, index, length), line),
        column,
      };
      if (this.contextLines > 0) {
        match.context_before = [...this.before];
        match.context_after = [];
        this.waiting.push(match);
      } else {
        this.sink.keep(match);
      }
    }
    return !this.sink.full();
  }

  /**
   * How far this file is searched: every match before this place was handed to the sink (a match
   * still waiting for its context_after is not). A resumed search is never before where it resumed.
   */
  place(): LinePlace {
    const waiting = this.waiting[0];
    if (waiting) return { line: waiting.line_number, column: waiting.column! - 1 };
    const next = { line: this.lineNumber + 1, column: 0 };
    const { from } = this;
    return from && (next.line < from.line || (next.line === from.line && next.column < from.column)) ? from : next;
  }
}
