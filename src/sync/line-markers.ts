/**
 * The workspace side of line merges (line-merge.ts): a refused merge's conflict markers written
 * into the workspace files, and remembered (session/merge-state.ts) so that every sync refuses
 * while they remain; a clean merge's text written into the workspace before the new archive
 * takes it from there. A file with markers is checked for them again at each sync.
 */
import fs from 'node:fs';
import { ZipfsError } from '../base/errors.ts';
import { invocation, param } from '../base/message-marks.ts';
import { withBeneath } from '../files/beneath.ts';
import { writeWorkspaceFile } from '../files/edit.ts';
import { markerLine } from '../files/merge-lines.ts';
import { quoted } from '../format/quote-name.ts';
import { addToMergeState, readMergeState, type MergedWith } from '../session/merge-state.ts';
import type { Session } from '../session/session-store.ts';
import { LINE_MERGE_MAX_BYTES } from './line-merge.ts';

export interface MarkedFile {
  path: string;
  text: string;
  mergedWith: MergedWith;
}

/** Writes the marked texts into the workspace, and remembers them. */
export function writeMarkers(session: Session, marked: readonly MarkedFile[]): void {
  for (const file of marked) writeWorkspaceFile(session.contents, file.path, Buffer.from(file.text), false);
  addToMergeState(session.dir, Object.fromEntries(marked.map((file) => [file.path, file.mergedWith])));
}

/** Writes a clean line merge's texts into the workspace files. */
export function writeMerged(root: string, merged: readonly { path: string; text: string }[]): void {
  for (const file of merged) writeWorkspaceFile(root, file.path, Buffer.from(file.text), false);
}

/** Refuses a sync while a file a merge marked still holds conflict markers. */
export function assertNoMarkersLeft(session: Session): void {
  const left: { path: string; line: number }[] = [];
  withBeneath(session.contents, (beneath) => {
    for (const relative of Object.keys(readMergeState(session.dir))) {
      let text: string;
      try {
        const at = beneath.place(relative).path;
        if ((fs.statSync(at, { throwIfNoEntry: false })?.size ?? 0) > LINE_MERGE_MAX_BYTES + (1 << 20)) continue;
        text = fs.readFileSync(at, 'utf8');
      } catch {
        continue; // gone or moved: no markers left there
      }
      const line = markerLine(text);
      if (line !== undefined) left.push({ path: relative, line });
    }
  });
  if (left.length === 0) return;
  const where = left.map((file) => `${quoted(file.path)} (line ${file.line})`).join(', ');
  throw new ZipfsError(
    'CONFLICT_DETECTED',
    `Conflict markers from a merge are still in ${left.length === 1 ? 'the workspace file' : 'workspace files'} ` +
      `${where}. Nothing was written. Edit the file to resolve the markers (keep the lines that should stay, remove ` +
      `the <<<<<<<, |||||||, ======= and >>>>>>> lines, with ${invocation('edit')}), then sync with ` +
      `${param('merge')} again.`,
    { details: { conflicts: left.map((file) => ({ path: file.path, markers_at: file.line })) } },
  );
}
