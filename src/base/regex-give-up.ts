/**
 * When the regex engine gives up. JavaScriptCore's regex interpreter (Bun's
 * engine, used for patterns its JIT cannot compile, such as nested repeats)
 * stops after a fixed amount of backtracking and answers "no match", with no
 * error: `(x+x+)+y` on a line of 40 `x` then `zxxy` is "no match" after about
 * 0.7 s, though grep -E finds `xxy`. Nothing tells that answer from a real one
 * except the time it took, so a "no match" that took far longer than scanning
 * the text can is taken as the engine giving up, and said as such (grep:
 * truncated and a note; edit: LIMIT_EXCEEDED), never as "absent". A search
 * that backtracks that long without the limit is near it anyway; saying it may
 * be incomplete costs less than a wrong "no match".
 */

/**
 * A "no match" taking this long, plus SCAN_CHARS_PER_MS of the text, is taken as the engine giving up (which takes
 * ~0.2-1 s).
 */
export const GIVE_UP_MS = 100;
/** Far below any engine's plain scanning speed: a long line's own scan time is never taken for giving up. */
const SCAN_CHARS_PER_MS = 100_000;

export interface WatchedHit {
  hit: RegExpExecArray | null;
  /** No match, in a time only a give-up explains: the answer is unknown, not "absent". */
  gaveUp: boolean;
}

/** regex.exec(text) (from regex.lastIndex for a g or y regex), telling a give-up from a real "no match". */
export function watchedExec(regex: RegExp, text: string): WatchedHit {
  const from = regex.global || regex.sticky ? regex.lastIndex : 0;
  const started = performance.now();
  const hit = regex.exec(text);
  if (hit) return { hit, gaveUp: false };
  // A slow "no match" once may be the machine (a pause, a busy core); the engine's give-up is the
  // same every time, so it counts only when a second run is as slow.
  const gaveUp = tooSlow(performance.now() - started, text, from) && slowAgain(regex, text, from);
  return { hit, gaveUp };
}

function tooSlow(ms: number, text: string, from: number): boolean {
  return ms > GIVE_UP_MS + (text.length - from) / SCAN_CHARS_PER_MS;
}

function slowAgain(regex: RegExp, text: string, from: number): boolean {
  regex.lastIndex = from;
  const started = performance.now();
  const again = regex.exec(text);
  const slow = again === null && tooSlow(performance.now() - started, text, from);
  regex.lastIndex = 0; // as exec leaves a g or y regex after no match
  return slow;
}
