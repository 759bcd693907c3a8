/**
 * Files that hold a path's bytes as a version has them (versions.ts), for read's pages: read pages
 * a file, whichever version it holds.
 */
import { ZipfsError, quote } from '../base/errors.ts';
import { invocation } from '../base/message-marks.ts';
import { normaliseToolPath } from '../files/safe-path.ts';
import type { Limits } from '../rules/limits.ts';
import type { Session } from '../session/session-store.ts';
import { withVersion, type Version } from './versions.ts';
import type { Seen, Workspace } from './workspace.ts';

/** What a version has at `input`: the file that holds its bytes, or 'dir' for a folder; PATH_NOT_FOUND for nothing. */
export async function versionFile(
  session: Session,
  version: Version,
  input: string,
): Promise<{ path: string; relative: string } | 'dir'> {
  const relative = normaliseToolPath(input);
  const item = version.find(relative);
  if (!item) {
    const which = version.name === 'zip' ? 'the zip as it is now' : "the session's base";
    throw new ZipfsError(
      'PATH_NOT_FOUND',
      `${quote(relative)} is not in ${which}` +
        `${version.name === 'zip' ? ' (another writer may have deleted it)' : ''}; ` +
        `${invocation('read', { path: relative })} reads the workspace's, and ${invocation('status')} lists ` +
        `what changed.`,
    );
  }
  if (item.type === 'dir') return 'dir';
  return { path: await version.file(session, item), relative };
}

/**
 * The file of an item only in the archive, as the workspace has it: its entry in the zip; once another writer changed
 * the zip, the same entry in the base the session keeps (a lazy session's untouched entries are the base's).
 */
export async function archivedFile(workspace: Workspace, seen: Seen, limits: Limits): Promise<string> {
  try {
    return await workspace.fileFor(seen.archived!, limits);
  } catch (error) {
    if (!(error instanceof ZipfsError) || error.code !== 'CONFLICT_DETECTED') throw error;
    try {
      return await withVersion(workspace.session, 'base', limits, async (base) => {
        const file = await versionFile(workspace.session, base, seen.relative);
        if (file === 'dir') throw error;
        return file.path;
      });
    } catch {
      throw error; // no base to read it from: the reader's refusal says what to do
    }
  }
}
