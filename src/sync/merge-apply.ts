/**
 * The zip's side of a merge, brought into the workspace: what the other
 * writer deleted (and the workspace left alone) is removed, what it added or
 * changed is written there, so that after the sync the workspace is the new
 * zip and status is clean. Deletions go first: a file the zip made a folder
 * (or a folder it made a file) leaves room for what replaces it. A folder
 * entry the zip dropped goes only when empty: the zip may keep its files,
 * the folder then implied by them. Done before the new archive replaces the
 * zip, from the zip as it is now (its data checked already: zip-now.ts): if
 * the sync then fails, the workspace holds only what the zip holds too, and
 * nothing is lost either way.
 */
import fs from 'node:fs';
import { ZipfsError, isSystemError, quote } from '../base/errors.ts';
import { withBeneath, type Beneath } from '../files/beneath.ts';
import { deleteWorkspacePath, writeWorkspaceFile } from '../files/edit.ts';
import { makeWorkspaceFolder } from '../files/make-folder.ts';
import { FileSource, readEntryData } from '../zip/index.ts';
import type { MergePlan } from './merge-plan.ts';

export function takeZipSide(
  root: string,
  zipPath: string,
  plan: MergePlan,
  onDisk?: (relative: string) => boolean,
): void {
  const here = (relative: string) => !onDisk || onDisk(relative); // an entry never extracted stays in the zip
  for (const record of plan.zipDeleted) {
    if (record.type === 'dir' || !here(record.path)) continue;
    try {
      deleteWorkspacePath(root, record.path, false);
    } catch (error) {
      if (!(error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND')) throw error;
    }
  }
  const folders = plan.zipDeleted
    .filter((record) => record.type === 'dir' && record.path !== '' && here(record.path))
    .map((record) => record.path);
  folders.sort((a, b) => b.split('/').length - a.split('/').length); // deepest first
  withBeneath(root, (beneath) => {
    for (const folder of folders) removeIfEmpty(beneath, folder);
  });

  const source = new FileSource(zipPath);
  try {
    for (const step of plan.steps) {
      if (step.kind !== 'zip' || step.quiet || !here(step.path)) continue;
      if (step.type === 'dir') {
        makeWorkspaceFolder(root, step.path, true);
        continue;
      }
      // A folder where the zip now has a file: emptied above (the plan let nothing else stay in it).
      withBeneath(root, (beneath) => removeEmptyTree(beneath, step.path));
      // a link entry is a file holding its target, as open makes it
      writeWorkspaceFile(root, step.path, readEntryData(source, step.entry), true);
    }
  } finally {
    source.close();
  }
}

function removeIfEmpty(beneath: Beneath, relative: string): void {
  try {
    fs.rmdirSync(beneath.place(relative).path);
  } catch (error) {
    // Still holding what the zip kept, gone already, or no folder: left as it is.
    if (
      !(
        isSystemError(error, 'ENOTEMPTY', 'EEXIST', 'ENOENT', 'ENOTDIR') ||
        (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND')
      )
    )
      throw error;
  }
}

/** Removes the folder at `relative` and the empty folders in it; nothing there, or not a folder: nothing to do. */
function removeEmptyTree(beneath: Beneath, relative: string): void {
  const stats = beneath.lstat(relative);
  if (!stats?.isDirectory()) return;
  for (const name of fs.readdirSync(beneath.place(relative).path)) removeEmptyTree(beneath, `${relative}/${name}`);
  try {
    fs.rmdirSync(beneath.place(relative).path);
  } catch (error) {
    if (!isSystemError(error, 'ENOTEMPTY', 'EEXIST')) throw error;
    throw new ZipfsError(
      'CONFLICT_DETECTED',
      `The zip has a file at ${quote(relative)}, where the workspace still has a folder holding files; nothing ` +
        `was replaced. Move those files out of ${quote(relative)}, then sync with merge again.`,
    );
  }
}
