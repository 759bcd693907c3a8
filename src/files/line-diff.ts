/**
 * Line diffs in unified format, for edit's preview and the diff tool. Myers'
 * O(ND) algorithm on what is left once the common head and tail are set
 * aside; past MAX_DISTANCE differing lines the middle is shown as one
 * replacement (still a correct diff, only a longer one), so a diff of two
 * unrelated large files costs no quadratic time or memory. Lines over 500
 * characters are shortened around the change (shorten-diff-lines.ts).
 */
import { quoteName } from '../format/quote-name.ts';
import { shortenHunk, type DiffLine } from './shorten-diff-lines.ts';

const MAX_DISTANCE = 2000;

export interface DiffStats {
  additions: number;
  deletions: number;
}

export type Op = { kind: ' ' | '-' | '+'; line: string };

/** Text as lines; whether it ended with a newline (a unified diff says when it did not). */
function toLines(text: string): { lines: string[]; finalNewline: boolean } {
  if (text === '') return { lines: [], finalNewline: true };
  const finalNewline = text.endsWith('\n');
  const lines = (finalNewline ? text.slice(0, -1) : text).split('\n');
  return { lines, finalNewline };
}

/** The middle of a diff: Myers' greedy forward search, then the path traced back. */
function myers(a: string[], b: string[]): Op[] | undefined {
  const n = a.length;
  const m = b.length;
  const max = Math.min(n + m, MAX_DISTANCE);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!) ? v[offset + k + 1]! : v[offset + k - 1]! + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, a, b, d, offset);
    }
  }
  return undefined;
}

function backtrack(trace: Int32Array[], a: string[], b: string[], distance: number, offset: number): Op[] {
  const ops: Op[] = [];
  let x = a.length;
  let y = b.length;
  for (let d = distance; d > 0; d--) {
    const v = trace[d]!;
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1]! < v[offset + k + 1]!);
    const previousK = down ? k + 1 : k - 1;
    const previousX = v[offset + previousK]!;
    const previousY = previousX - previousK;
    for (; x > previousX && y > previousY; y--) ops.push({ kind: ' ', line: a[--x]! });
    if (down) ops.push({ kind: '+', line: b[--y]! });
    else ops.push({ kind: '-', line: a[--x]! });
  }
  for (; x > 0 && y > 0; y--) ops.push({ kind: ' ', line: a[--x]! });
  return ops.reverse();
}

/** The edit script from `a` to `b`, line by line: kept (' '), removed ('-') and added ('+') lines in order. */
export function diffOps(a: string[], b: string[]): Op[] {
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  const middleA = a.slice(head, a.length - tail);
  const middleB = b.slice(head, b.length - tail);
  const middle = myers(middleA, middleB) ?? [
    ...middleA.map((line) => ({ kind: '-' as const, line })),
    ...middleB.map((line) => ({ kind: '+' as const, line })),
  ];
  return [
    ...a.slice(0, head).map((line) => ({ kind: ' ' as const, line })),
    ...middle,
    ...a.slice(a.length - tail).map((line) => ({ kind: ' ' as const, line })),
  ];
}

/**
 * A unified diff of two texts under one name (`--- a/name`, `+++ b/name`),
 * with `context` lines around each change; '' when they are equal. A name that
 * would break a header line or act on a terminal is quoted there, as git quotes it.
 */
export function unifiedDiff(name: string, before: string, after: string, context = 3): { text: string } & DiffStats {
  if (before === after) return { text: '', additions: 0, deletions: 0 };
  const a = toLines(before);
  const b = toLines(after);
  // A missing final newline is a difference of the last line: mark it so, as diff(1) does.
  const NO_NEWLINE = '\u0000';
  if (!a.finalNewline && a.lines.length > 0) a.lines[a.lines.length - 1] += NO_NEWLINE;
  if (!b.finalNewline && b.lines.length > 0) b.lines[b.lines.length - 1] += NO_NEWLINE;
  const ops = diffOps(a.lines, b.lines);

  const out = [
    `--- ${before === '' ? '/dev/null' : quoteName(`a/${name}`)}`,
    `+++ ${after === '' ? '/dev/null' : quoteName(`b/${name}`)}`,
  ];
  let additions = 0;
  let deletions = 0;
  const changed = ops.map((op, i) => (op.kind === ' ' ? -1 : i)).filter((i) => i >= 0);
  let i = 0;
  while (i < changed.length) {
    // A hunk: this change and every next one with at most 2 x context unchanged lines between.
    let last = i;
    while (last + 1 < changed.length && changed[last + 1]! - changed[last]! - 1 <= 2 * context) last++;
    const start = Math.max(0, changed[i]! - context);
    const end = Math.min(ops.length, changed[last]! + context + 1);
    let oldStart = 1;
    let newStart = 1;
    for (let j = 0; j < start; j++) {
      if (ops[j]!.kind !== '+') oldStart++;
      if (ops[j]!.kind !== '-') newStart++;
    }
    const hunk: (DiffLine & { noNewline: boolean })[] = [];
    let oldCount = 0;
    let newCount = 0;
    for (let j = start; j < end; j++) {
      const op = ops[j]!;
      if (op.kind !== '+') oldCount++;
      if (op.kind !== '-') newCount++;
      if (op.kind === '+') additions++;
      if (op.kind === '-') deletions++;
      const noNewline = op.line.endsWith(NO_NEWLINE);
      hunk.push({ kind: op.kind, text: noNewline ? op.line.slice(0, -1) : op.line, noNewline });
    }
    shortenHunk(hunk);
    const body = hunk.flatMap((line) =>
      line.noNewline ? [`${line.kind}${line.text}`, '\\ No newline at end of file'] : [`${line.kind}${line.text}`],
    );
    const range = (from: number, count: number) => `${count === 0 ? from - 1 : from}${count === 1 ? '' : `,${count}`}`;
    out.push(`@@ -${range(oldStart, oldCount)} +${range(newStart, newCount)} @@`, ...body);
    i = last + 1;
  }
  return { text: `${out.join('\n')}\n`, additions, deletions };
}
