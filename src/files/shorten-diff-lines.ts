/**
 * Long lines in a diff, shortened around the change: a one-line minified JSON file whose single
 * value changed would otherwise make a diff of two whole copies of it. Each line over MAX_LINE
 * characters keeps a window that starts a little before where it differs from its counterpart
 * (a removed line paired with the added line in the same place of a replaced block), and says how
 * many characters it left out on each side, in the same marks as grep's long lines (grep-worker.ts
 * cuts its lines around the match with shortenAround too). Lines without a counterpart, and
 * context lines, keep their start.
 */

/** Enough to read a change, or a match, in its surroundings. */
export const MAX_LINE = 500;
/** How much of what comes before the change the window shows. */
const LEAD = 100;

/**
 * `line` cut to MAX_LINE characters from a little before `at`, with what was left out marked.
 * `length` is the whole line's when `line` holds only its start (grep keeps at most
 * LINE_CAP_CHARS of a line, line-search.ts): the marks then count what it dropped too.
 */
export function shortenAround(line: string, at = 0, length = line.length): string {
  if (length <= MAX_LINE) return line;
  const start = Math.max(0, Math.min(at - LEAD, length - MAX_LINE));
  const shown = line.slice(start, start + MAX_LINE);
  const end = start + shown.length;
  return `${start > 0 ? `…[${start} chars] ` : ''}${shown}${end < length ? ` …[${length - end} more chars]` : ''}`;
}

/** Where two lines start to differ. */
function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

export interface DiffLine {
  kind: ' ' | '-' | '+';
  text: string;
}

/** Shortens the long lines of one hunk in place: removed and added lines of a replaced block pair up in order. */
export function shortenHunk(lines: DiffLine[]): void {
  let i = 0;
  while (i < lines.length) {
    if (lines[i]!.kind === ' ') {
      lines[i]!.text = shortenAround(lines[i]!.text);
      i++;
      continue;
    }
    const removedFrom = i;
    while (i < lines.length && lines[i]!.kind === '-') i++;
    const addedFrom = i;
    while (i < lines.length && lines[i]!.kind === '+') i++;
    const removed = lines.slice(removedFrom, addedFrom);
    const added = lines.slice(addedFrom, i);
    for (let k = 0; k < Math.max(removed.length, added.length); k++) {
      const before = removed[k];
      const after = added[k];
      const at = before && after ? firstDifference(before.text, after.text) : 0;
      if (before) before.text = shortenAround(before.text, at);
      if (after) after.text = shortenAround(after.text, at);
    }
  }
}
