/**
 * A sync's additions, appended to the new archive in path order after the base's entries
 * (write-archive.ts): what the workspace gained, each written from its file as it is now.
 */
import { unsupportedFile } from '../base/regular-file.ts';
import { writeAddition, type EntrySink } from './sync-entries.ts';
import { vanished } from './sync-failure.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';
import type { WrittenItem } from './written-item.ts';

/**
 * Writes `diff.additions` but those in `skip` (a merge's, which the zip added the same and were written from it),
 * noting each in `written`; returns how many were gone when their turn came.
 */
export async function writeAdditions(
  sink: EntrySink,
  diff: WorkspaceDiff,
  options: { skip?: Set<string>; written: WrittenItem[]; step: (label: string) => unknown },
): Promise<number> {
  let gone = 0;
  for (const addition of diff.additions) {
    if (options.skip?.has(addition.path)) continue;
    const { kind } = addition.observed;
    // refused before writing began; never packed
    if (kind === 'special') throw unsupportedFile(addition.path, addition.observed.what!);
    // What came and went since the scan (an editor's swap file) is not there to write: left out, and not
    // counted. A file is found gone as it is read, before its entry is begun; a folder is looked for first.
    const there = kind !== 'dir' || sink.beneath.lstat(addition.path)?.isDirectory() === true;
    const central = there
      ? await writeAddition(sink, addition.path, addition.observed).catch((error: unknown) => {
          if (vanished(error)) return undefined;
          throw error;
        })
      : undefined;
    if (central === undefined) {
      gone++;
      continue;
    }
    options.written.push({ path: addition.path, type: kind, central });
    await options.step(addition.path);
  }
  return gone;
}
