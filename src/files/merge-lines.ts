/**
 * A three-way merge of texts by lines, as `git merge-file` makes one (DESIGN.md, "Merges"): the
 * changes each side made to the base (two line diffs against it: line-diff.ts) are taken together
 * where they touch different lines; where both changed the same lines the same way, once; where
 * they changed the same lines differently, a conflict, written with git's markers (the base's
 * lines between `|||||||` and `=======`, as git's diff3 style shows them). Two changes touch when
 * their ranges of base lines overlap, or when one inserts lines at the edge or inside of the
 * other (the order of the two would be a guess); changes to adjacent lines merge, as GNU diff3
 * merges them. Lines keep their own endings, so a text with CRLF or without a final newline comes
 * back as it was where nothing conflicts.
 */
import { diffOps } from './line-diff.ts';

/** Lines of a conflict's block in the merged text, from its `<<<<<<<` line to its `>>>>>>>` line, counted from 1. */
export interface LineConflict {
  start: number;
  end: number;
}

export interface MergedLines {
  text: string;
  conflicts: LineConflict[];
}

/** The names on the markers: `<<<<<<< workspace`, `||||||| base`, `>>>>>>> zip`. */
export interface MarkerLabels {
  ours: string;
  base: string;
  theirs: string;
}

const LABELS: MarkerLabels = { ours: 'workspace', base: 'base', theirs: 'zip' };

/** A change one side made: base lines [start, end) replaced by `lines`. */
interface Hunk {
  start: number;
  end: number;
  lines: string[];
  side: 0 | 1;
}

/** Text as lines, each with its ending ('\n' or '\r\n'; the last may have none). */
export function splitLines(text: string): string[] {
  const lines: string[] = [];
  let from = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', from)) {
    lines.push(text.slice(from, at + 1));
    from = at + 1;
  }
  if (from < text.length) lines.push(text.slice(from));
  return lines;
}

function hunks(base: string[], side: string[], which: 0 | 1): Hunk[] {
  const found: Hunk[] = [];
  let at = 0; // in base
  let open: Hunk | undefined;
  for (const op of diffOps(base, side)) {
    if (op.kind === ' ') {
      if (open) found.push(open);
      open = undefined;
      at++;
      continue;
    }
    open ??= { start: at, end: at, lines: [], side: which };
    if (op.kind === '-') open.end = ++at;
    else open.lines.push(op.line);
  }
  if (open) found.push(open);
  return found;
}

/** Whether `hunk` (starting at or after `start`) touches the group of changes over base lines [start, end). */
function touches(hunk: Hunk, start: number, end: number): boolean {
  if (hunk.start < end && start < hunk.end) return true; // they share base lines
  if (hunk.start === hunk.end) return start <= hunk.start && hunk.start <= end; // an insertion at its edge or inside
  return start === end && hunk.start <= start && start <= hunk.end; // the group inserts at this one's edge
}

/** Base lines [start, end) with one side's changes in them. */
function applied(base: string[], changes: Hunk[], start: number, end: number): string[] {
  const out: string[] = [];
  let at = start;
  for (const change of changes) {
    out.push(...base.slice(at, change.start), ...change.lines);
    at = change.end;
  }
  out.push(...base.slice(at, end));
  return out;
}

/** The merge of `ours` and `theirs`, both changed from `base`. */
export function mergeLines(base: string, ours: string, theirs: string, labels: MarkerLabels = LABELS): MergedLines {
  const o = splitLines(base);
  const changes = [...hunks(o, splitLines(ours), 0), ...hunks(o, splitLines(theirs), 1)].sort(
    (x, y) => x.start - y.start || x.end - y.end || x.side - y.side,
  );
  const eol = base.includes('\r\n') || ours.includes('\r\n') ? '\r\n' : '\n';
  const out: string[] = [];
  const conflicts: LineConflict[] = [];
  let at = 0;
  for (let i = 0; i < changes.length; ) {
    const group = [changes[i]!];
    const start = group[0]!.start;
    let end = group[0]!.end;
    for (i++; i < changes.length && touches(changes[i]!, start, end); i++) {
      group.push(changes[i]!);
      end = Math.max(end, changes[i]!.end);
    }
    out.push(...o.slice(at, start));
    at = end;
    const mine = group.filter((change) => change.side === 0);
    const theirsHere = group.filter((change) => change.side === 1);
    const a = applied(o, mine, start, end);
    if (theirsHere.length === 0) {
      out.push(...a);
      continue;
    }
    const b = applied(o, theirsHere, start, end);
    if (mine.length === 0 || (a.length === b.length && a.every((line, k) => line === b[k]))) {
      out.push(...b);
      continue;
    }
    const first = out.length + 1;
    const section = (lines: string[]) => {
      out.push(...lines);
      const last = out.at(-1);
      if (lines.length > 0 && last !== undefined && !last.endsWith('\n')) out[out.length - 1] = `${last}${eol}`;
    };
    out.push(`<<<<<<< ${labels.ours}${eol}`);
    section(a);
    out.push(`||||||| ${labels.base}${eol}`);
    section(o.slice(start, end));
    out.push(`=======${eol}`);
    section(b);
    out.push(`>>>>>>> ${labels.theirs}${eol}`);
    conflicts.push({ start: first, end: out.length });
  }
  out.push(...o.slice(at));
  return { text: out.join(''), conflicts };
}

const MARKER = /^(?:<{7} |>{7} |={7}\r?$)/m;

/** The conflict markers left in `text`: the first such line's number, or undefined when there is none. */
export function markerLine(text: string): number | undefined {
  const found = MARKER.exec(text);
  if (!found) return undefined;
  let line = 1;
  for (let at = text.indexOf('\n'); at >= 0 && at < found.index; at = text.indexOf('\n', at + 1)) line++;
  return line;
}
