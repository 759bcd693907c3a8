/**
 * What status lists, as a unified diff against the archive's original content: the base, read
 * from the source zip while it is still the archive the session opened (or last synced), else
 * from the copy of it the session keeps (session/base-archive.ts). Without either, the diff says
 * so and names the diff against the zip now (zip-diff.ts). Binary files (grep's rule, or not
 * UTF-8) and special files are listed without a text diff.
 */
import { ZipfsError } from '../base/errors.ts';
import { Beneath } from '../files/beneath.ts';
import { normaliseToolPath } from '../files/safe-path.ts';
import { invocation, param } from '../base/message-marks.ts';
import type { EntryRecord } from '../session/manifest.ts';
import type { Session } from '../session/session-store.ts';
import { FileSource, readEntryData } from '../zip/index.ts';
import { isNewArchive, sourceState } from '../session/source-state.ts';
import { diffWorkspace, type WorkspaceDiff } from './workspace-diff.ts';
import { fetchIntoMirror } from '../session/base-archive.ts';
import type { Base } from '../workspace/base.ts';
import { openBaseSource } from '../workspace/versions.ts';
import { TEXT_DIFF_MAX_BYTES, fileSection, readCurrent, type FileSection } from './diff-sections.ts';

export type { FileDiff, FileSection } from './diff-sections.ts';

/** Every changed path in scope, by path, with its diff: the diff command pages through them (paging.ts). */
export async function diffAgainstArchive(
  session: Session,
  base: Base,
  options: { path?: string; context: number },
): Promise<FileSection[]> {
  const record = base.record;
  const fresh = isNewArchive(record);
  // The base's bytes are read through a descriptor checked to hold the base (source-state.ts, versions.ts).
  const source = fresh ? undefined : openBaseSource(session);
  const state = source ? 'unchanged' : sourceState(record);
  if (state === 'changed') {
    throw new ZipfsError(
      'CONFLICT_DETECTED',
      `The zip ${record.source_path} changed since this session's base (another writer), and the session keeps ` +
        `no copy of the base to diff against. ${invocation('diff', { against: 'zip' })} diffs the workspace ` +
        `against the zip as it is now; ${invocation('status')} lists the workspace's changes; sync with ` +
        `${param('merge')} keeps both sides' changes.`,
    );
  }
  if (state === 'missing' && !fresh) {
    throw new ZipfsError(
      'ZIP_NOT_FOUND',
      `The zip ${record.source_path} is gone, and the session keeps no copy of the original content to diff ` +
        `against; ${invocation('status')} still lists the changes.`,
    );
  }
  try {
    const changes = diffWorkspace(session.contents, base);
    // A remote archive's base entries the sections read are fetched into its mirror first (nothing for a local one).
    const read = [...changes.modified, ...changes.deleted, ...changes.renamed.map((rename) => rename.from)];
    const byPath = new Map(changes.entries.map((entry) => [entry.path, entry]));
    const entries = read.flatMap((at) => byPath.get(at.endsWith('/') ? at.slice(0, -1) : at) ?? []);
    if (source) await fetchIntoMirror(session, source, entries);
    return sectionsOf(session.contents, base, options, { source, changes });
  } finally {
    source?.close();
  }
}

/** The sections, with the base's entries read from `source` (none for a new archive). */
function sectionsOf(
  root: string,
  base: Base,
  options: { path?: string; context: number },
  read: { source: FileSource | undefined; changes: WorkspaceDiff },
): FileSection[] {
  const { source, changes } = read;
  const scope = options.path === undefined ? '' : normaliseToolPath(options.path);
  const inScope = (shown: string) => {
    const bare = shown.endsWith('/') ? shown.slice(0, -1) : shown;
    return scope === '' || bare === scope || bare.startsWith(`${scope}/`);
  };
  const unsupported = new Set(changes.unsupported.map((u) => u.path));
  const byPath = new Map(changes.entries.map((e) => [e.path, e]));
  const beneath = new Beneath(root);
  try {
    const original = (entry: EntryRecord | undefined): Uint8Array => {
      if (!entry || !source || entry.type === 'dir') return new Uint8Array(0);
      const location = {
        name: entry.name,
        flags: entry.flags,
        method: entry.method,
        compressedSize: entry.compressed_size,
        uncompressedSize: entry.size,
        crc32: entry.crc32,
        localHeaderOffset: entry.local_header_offset,
      };
      return entry.size > TEXT_DIFF_MAX_BYTES
        ? new Uint8Array(TEXT_DIFF_MAX_BYTES + 1)
        : readEntryData(source, location);
    };
    const current = (shown: string): Uint8Array => {
      const observed = changes.observed.get(shown);
      if (!observed || observed.kind === 'dir' || observed.kind === 'special' || unsupported.has(shown))
        return new Uint8Array(0);
      if (observed.kind !== 'symlink' && observed.size > TEXT_DIFF_MAX_BYTES)
        return new Uint8Array(TEXT_DIFF_MAX_BYTES + 1);
      return readCurrent(beneath, shown, observed.kind === 'symlink');
    };
    const renamedFrom = new Map(changes.renamed.map((rename) => [rename.to, rename]));
    const listed = [
      ...(['modified', 'added', 'deleted'] as const).flatMap((status) =>
        changes[status].map((shown) => [status, shown] as const),
      ),
      ...changes.renamed.map((rename) => ['renamed' as const, rename.to] as const),
    ];
    listed.sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
    const sections: FileSection[] = [];
    for (const [status, shown] of listed) {
      const rename = status === 'renamed' ? renamedFrom.get(shown) : undefined;
      if (!inScope(shown) && !(rename && inScope(rename.from))) continue;
      const folder = shown.endsWith('/');
      const bare = folder ? shown.slice(0, -1) : shown;
      const was = rename ? (folder ? rename.from.slice(0, -1) : rename.from) : bare;
      const special = unsupported.has(shown) || changes.observed.get(bare)?.kind === 'special';
      // A rename whose content did not change shows no content, as git's does.
      const same = rename !== undefined && rename.modified !== true;
      const before = status === 'added' || folder || same ? new Uint8Array(0) : original(byPath.get(was));
      const after = status === 'deleted' || folder || same ? new Uint8Array(0) : current(bare);
      sections.push(fileSection({ status, shown, rename, special, before, after, context: options.context }));
    }
    return sections;
  } finally {
    beneath.close();
  }
}
