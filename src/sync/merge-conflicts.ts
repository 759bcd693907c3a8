/**
 * A merge's refusal: every path both sides changed, with what each did; a text file's changes to
 * the same lines with the lines of its marker blocks (line-merge.ts), an entry merged whole with
 * why. The answer carries them as `conflicts` beside the message, for a caller to act on each.
 */
import { ZipfsError } from '../base/errors.ts';
import { invocation, param } from '../base/message-marks.ts';
import { quoted } from '../format/quote-name.ts';
import type { Conflict } from './merge-clashes.ts';

const SHOWN = 10;

/** "lines 4-10 and 20-26" */
function lineRanges(conflict: Conflict): string {
  const ranges = conflict.lines!.map(({ start, end }) => `${start}-${end}`);
  const joined = ranges.length < 2 ? ranges.join('') : `${ranges.slice(0, -1).join(', ')} and ${ranges.at(-1)}`;
  return `lines ${joined}`; // a block of markers is never one line
}

function describe(conflict: Conflict, dryRun: boolean): string {
  if (conflict.lines)
    return (
      `${quoted(conflict.path)} (both changed the same lines: ${lineRanges(conflict)} of the file ` +
      `${dryRun ? 'a merge would mark' : 'as marked'})`
    );
  const reason = conflict.reason ? `; not merged by lines: ${conflict.reason}` : '';
  return `${quoted(conflict.path)} (zip: ${conflict.zip}, workspace: ${conflict.workspace}${reason})`;
}

/** The conflict's wire shape: path, each side, and lines or reason where known. */
function detail(conflict: Conflict): Record<string, unknown> {
  return {
    path: conflict.path,
    zip: conflict.zip,
    workspace: conflict.workspace,
    ...(conflict.lines ? { lines: conflict.lines.map(({ start, end }) => [start, end]) } : {}),
    ...(conflict.reason ? { reason: conflict.reason } : {}),
  };
}

export function conflictError(found: readonly Conflict[], dryRun: boolean): ZipfsError {
  const byPath = new Map<string, Conflict>();
  for (const c of found) if (!byPath.has(c.path)) byPath.set(c.path, c);
  const conflicts = [...byPath.values()];
  const shown = conflicts.slice(0, SHOWN).map((c) => describe(c, dryRun));
  const more = conflicts.length > SHOWN ? `, and ${conflicts.length - SHOWN} more` : '';
  const marked = conflicts.filter((c) => c.lines).length;
  const whole = conflicts.length - marked;
  // The calls that resolve them, named exactly: see the zip's side, take it (or the base's), or keep the workspace's.
  const wholePaths = conflicts.filter((c) => !c.lines).map((c) => c.path);
  const markedPaths = conflicts.filter((c) => c.lines).map((c) => c.path);
  const first = (wholePaths[0] ?? markedPaths[0])!;
  const see =
    ` See the zip's version with ${invocation('read', { path: first, version: 'zip' })}, or every difference with ` +
    `${invocation('diff', { against: 'zip' })}.`;
  const markers =
    marked === 0
      ? ''
      : dryRun
        ? ` A merge would write git's conflict markers into ${marked === 1 ? 'that file' : 'those files'}.`
        : ` git's conflict markers were written into ${marked === 1 ? 'that workspace file' : 'those files'}` +
          ` (<<<<<<< workspace, ||||||| base, =======, >>>>>>> zip): edit ${marked === 1 ? 'it' : 'each'} to ` +
          `resolve the markers (keep the lines that should stay, remove the marker lines, with ` +
          `${invocation('edit')}), or take the zip's whole with ` +
          `${invocation('restore', { paths: markedPaths, from: 'zip' })}; then sync with ${param('merge')} ` +
          `again; sync refuses while markers remain.`;
  const rest =
    whole === 0
      ? ''
      : ` For ${marked === 0 ? 'each' : 'each other'} path, take the zip's version into the workspace with ` +
        `${invocation('restore', { paths: wholePaths, from: 'zip' })} (edit it after if it should keep some of ` +
        `the workspace's change), or undo the workspace's change with ` +
        `${invocation('restore', { paths: wholePaths, from: 'base' })}; then sync with ${param('merge')} again. ` +
        `Or sync with ${param('force')} to keep the workspace's version of everything.`;
  return new ZipfsError(
    'CONFLICT_DETECTED',
    `${conflicts.length === 1 ? 'An entry was' : `${conflicts.length} entries were`} changed both in the zip ` +
      `(by another writer) and in this workspace: ${shown.join('; ')}${more}. Nothing was written to the zip.` +
      `${see}${markers}${rest}`,
    { details: { conflicts: conflicts.map(detail) } },
  );
}
