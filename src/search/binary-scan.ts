/**
 * grep's search of a binary file on request (`binary: true`): the bytes as
 * Latin-1, one character per byte, so a match's index is its byte offset and
 * ASCII patterns (class and method names in a jar's .class files) match as
 * they are. One match per file: the first.
 *
 * The bytes come as a stream, and a file may be far larger than memory, so
 * the regex runs over a window: what is left of the previous pieces plus the
 * new one. A match is taken only once LOOKAHEAD_CHARS of text follow it in the
 * window (or the file has ended), so what the pattern looks at past its match
 * (`$`, `\b`, a lookahead, a greedy run) is what the whole file would show it;
 * a match found closer to the window's end is searched for again, from where
 * it starts, with the next piece. The cap: a match that, with what the pattern
 * looks at around it, spans more than LOOKAHEAD_CHARS (64 KiB) may be missed
 * or found later than in the whole file, and one still growing when the
 * window reaches WINDOW_MAX_CHARS (16 MiB) is taken as it stands there.
 */

import { watchedExec } from '../base/regex-give-up.ts';

const RUN_MAX = 200;
const LOOKAHEAD_CHARS = 64 * 1024;
const WINDOW_MAX_CHARS = 16 * 1024 * 1024;

export interface BinaryHit {
  /** Byte offset in the file where the match starts. */
  offset: number;
  /** The printable run of bytes around it (as `strings` shows). */
  text: string;
}

export class BinaryScan {
  /** The file's bytes from `base`, as Latin-1. */
  private text = '';
  private base = 0;
  /** Where in `text` the next search starts: nothing before it can start the first match. */
  private from = 0;
  private readonly regex: RegExp;

  constructor(
    pattern: string,
    flags: string,
    /** The regex engine gave up on the window (regex-give-up.ts): a match in it may be missed. */
    private readonly onGiveUp: () => void,
  ) {
    // 'g' for lastIndex: the search starts at `from` while a lookbehind still sees what precedes it.
    this.regex = new RegExp(pattern, `${flags}g`);
  }

  /** Takes the next piece of the file; returns the first match once it is certain. */
  push(bytes: Uint8Array): BinaryHit | undefined {
    this.text += Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('latin1');
    return this.search(false);
  }

  /** The file has ended: the first match in what is left, if any. */
  end(): BinaryHit | undefined {
    return this.search(true);
  }

  private search(final: boolean): BinaryHit | undefined {
    this.regex.lastIndex = this.from;
    const { hit, gaveUp } = watchedExec(this.regex, this.text);
    if (gaveUp) this.onGiveUp();
    if (
      hit &&
      (final || this.text.length > WINDOW_MAX_CHARS || hit.index + hit[0].length + LOOKAHEAD_CHARS <= this.text.length)
    ) {
      return describe(this.text, hit, this.base);
    }
    // Keep where a match may yet start (the one found, or the last LOOKAHEAD_CHARS), and RUN_MAX before it for the run.
    // `from` stays at least RUN_MAX past the window's start once base > 0, so `^` never matches there.
    const next = hit ? hit.index : Math.max(this.from, this.text.length - LOOKAHEAD_CHARS);
    const keep = Math.max(0, next - RUN_MAX);
    this.text = this.text.slice(keep);
    this.base += keep;
    this.from = next - keep;
    return undefined;
  }
}

function describe(latin1: string, hit: RegExpExecArray, base: number): BinaryHit {
  const printable = (at: number) => {
    const code = latin1.charCodeAt(at);
    return (code >= 0x20 && code < 0x7f) || code === 0x09;
  };
  let from = hit.index;
  while (from > 0 && hit.index - from < RUN_MAX && printable(from - 1)) from--;
  let to = hit.index + hit[0].length;
  while (to < latin1.length && to - hit.index < RUN_MAX && printable(to)) to++;
  // Other bytes inside the match itself are shown as \xNN, so the line stays one line of plain text.
  const text = latin1
    .slice(from, to)
    .replace(/[^\x20-\x7e\t]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return { offset: base + hit.index, text };
}
