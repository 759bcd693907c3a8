/**
 * The zip's side of a merge, brought into the workspace: what the other
 * writer added or changed is written there, what it deleted (and the
 * workspace left alone) is removed, so that after the sync the workspace is
 * the new zip and status is clean. Done before the new archive replaces the
 * zip, from the zip as it is now: if the sync then fails, the workspace holds
 * only what the zip holds too, and nothing is lost either way.
 */
import { ZipfsError } from '../errors.ts';
import { deleteWorkspacePath, writeWorkspaceFile } from '../files/edit.ts';
import { makeWorkspaceFolder } from '../files/make-folder.ts';
import { FileSource, readEntryData } from '../zip/index.ts';
import type { MergePlan } from './merge-plan.ts';

export function takeZipSide(root: string, zipPath: string, plan: MergePlan, onDisk?: (relative: string) => boolean): void {
  const source = new FileSource(zipPath);
  try {
    for (const step of plan.steps) {
      if (step.kind !== 'zip' || (onDisk && !onDisk(step.path))) continue; // a lazy session's entry not extracted stays in the zip
      if (step.type === 'dir') makeWorkspaceFolder(root, step.path, true);
      else writeWorkspaceFile(root, step.path, readEntryData(source, step.entry), true); // a link entry is a file holding its target, as open makes it
    }
  } finally {
    source.close();
  }
  for (const record of plan.zipDeleted) {
    if (onDisk && !onDisk(record.path)) continue;
    try {
      deleteWorkspacePath(root, record.path, true);
    } catch (error) {
      if (!(error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND')) throw error;
    }
  }
}
