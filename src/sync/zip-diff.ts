/**
 * The workspace against the zip as it is now, as `git diff <commit>` compares the working tree
 * with a commit other than the index's: after another writer changed the zip, what a merge would
 * find on both sides, path by path (a/ is the zip's, b/ the workspace's). The paths are those
 * either side changed since the base; a path both changed the same way is no difference. The
 * workspace's file is what is on disk; an entry a lazy session never extracted is the base's.
 * Renames are shown as a deletion and an addition.
 */
import { Beneath } from '../files/beneath.ts';
import { normaliseToolPath } from '../files/safe-path.ts';
import type { Limits } from '../rules/limits.ts';
import type { EntryRecord } from '../session/manifest.ts';
import type { Session } from '../session/session-store.ts';
import type { Base } from '../workspace/base.ts';
import { Version, withVersion } from '../workspace/versions.ts';
import { crc32 } from '../zip/codec.ts';
import { TEXT_DIFF_MAX_BYTES, fileSection, readCurrent, type FileSection } from './diff-sections.ts';
import { diffWorkspace, type WorkspaceDiff } from './workspace-diff.ts';

/** What the workspace has at a path: the file on disk, the base's entry (never extracted), or nothing. */
type Side = { kind: 'disk' } | { kind: 'base'; record: EntryRecord } | { kind: 'none' };

const TOO_LARGE: Uint8Array = new Uint8Array(TEXT_DIFF_MAX_BYTES + 1);

/** The workspace's side of each path: on disk, or the base's entry where the scan left it untouched. */
function workspaceSides(changes: WorkspaceDiff, whole: readonly EntryRecord[]): (relative: string) => Side {
  const gone = new Set(changes.deleted.map((at) => at.replace(/\/$/, '')));
  for (const { from } of changes.renamed) gone.add(from.replace(/\/$/, ''));
  const byPath = new Map(whole.map((record) => [record.path, record]));
  return (relative) => {
    const observed = changes.observed.get(relative);
    if (observed && observed.kind !== 'dir') return { kind: 'disk' };
    const record = byPath.get(relative);
    return record && record.type !== 'dir' && !gone.has(relative) ? { kind: 'base', record } : { kind: 'none' };
  };
}

/** Every path where the workspace differs from the zip now, in scope and by path, with its diff. */
export async function diffAgainstZip(
  session: Session,
  base: Base,
  options: { path?: string; context: number; limits: Limits },
): Promise<FileSection[]> {
  const changes = diffWorkspace(session.contents, base);
  const whole = base.whole();
  return withVersion(session, 'zip', options.limits, async (zip) => {
    const scope = options.path === undefined ? '' : normaliseToolPath(options.path);
    const inScope = (at: string) => scope === '' || at === scope || at.startsWith(`${scope}/`);
    // The paths either side changed since the base (files only: a folder's diff has no lines).
    const paths = new Set<string>();
    for (const at of [...changes.modified, ...changes.added, ...changes.deleted]) paths.add(at);
    for (const { from, to } of changes.renamed) paths.add(from).add(to);
    const inBase = new Map(whole.map((record) => [record.path, record]));
    zip.paths.forEach((at, index) => {
      const record = inBase.get(at);
      const item = zip.item(index);
      if (!record || record.crc32 !== item.crc32 || record.size !== item.size || record.type !== item.type)
        paths.add(at);
    });
    for (const record of whole) if (zip.find(record.path) === undefined) paths.add(record.path);
    // What the loop below reads of the zip: fetched first where the zip is a remote archive's mirror.
    await zip.fetch(
      [...paths].flatMap((at) => {
        const item = inScope(at) ? zip.find(at) : undefined;
        return item && item.type !== 'dir' && item.size <= TEXT_DIFF_MAX_BYTES ? [item.index] : [];
      }),
    );
    const sideOf = workspaceSides(changes, whole);
    const beneath = new Beneath(session.contents);
    let baseVersion: Version | undefined;
    try {
      const sections: FileSection[] = [];
      for (const at of [...paths].filter((p) => p !== '' && !p.endsWith('/') && inScope(p)).sort(byCodeUnit)) {
        const item = zip.find(at);
        const inZip = item !== undefined && item.type !== 'dir';
        const side = sideOf(at);
        if (!inZip && side.kind === 'none') continue;
        const observed = changes.observed.get(at);
        const special = observed?.kind === 'special' || changes.unsupported.some((u) => u.path === at);
        let after: Uint8Array = new Uint8Array(0);
        if (side.kind === 'disk' && !special)
          after = observed && observed.size > TEXT_DIFF_MAX_BYTES ? TOO_LARGE : readCurrent(beneath, at, false);
        if (side.kind === 'disk' && observed?.kind === 'symlink') after = readCurrent(beneath, at, true);
        if (side.kind === 'base') {
          // Never extracted: the base's bytes, the same as the zip's when the zip kept the entry.
          if (inZip && item.crc32 === side.record.crc32 && item.size === side.record.size) continue;
          baseVersion ??= Version.open(session, 'base', options.limits);
          const kept = baseVersion.find(at);
          after = !kept || kept.size > TEXT_DIFF_MAX_BYTES ? TOO_LARGE : baseVersion.read(kept);
        }
        const before = !inZip ? new Uint8Array(0) : item.size > TEXT_DIFF_MAX_BYTES ? TOO_LARGE : zip.read(item);
        if (inZip && side.kind !== 'none' && sameBytes(before, after, item.crc32)) continue;
        const status = !inZip ? 'added' : side.kind === 'none' ? 'deleted' : 'modified';
        sections.push(fileSection({ status, shown: at, special, before, after, context: options.context }));
      }
      return sections;
    } finally {
      baseVersion?.close();
      beneath.close();
    }
  });
}

function sameBytes(zip: Uint8Array, workspace: Uint8Array, zipCrc: number): boolean {
  return zip !== TOO_LARGE && workspace !== TOO_LARGE && zip.length === workspace.length && crc32(workspace) === zipCrc;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
