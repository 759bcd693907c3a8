/**
 * A remote session's entries fetched before they are read (DESIGN.md, "Remote stores"): the zip
 * code reads its mirror synchronously, so what a call will read (each entry's local header and
 * data, up to the next entry) is made present first, adjacent entries in one request. Nothing for
 * a local session.
 */
import { ensureRanges, type Range } from '../remote/mirror.ts';
import type { LazyEntries } from '../session/lazy-entries.ts';
import type { Session } from '../session/session-store.ts';

export async function fetchEntries(
  session: Session,
  lazy: LazyEntries,
  indexes: Iterable<number>,
  signal?: AbortSignal,
): Promise<void> {
  const remote = session.record.remote;
  if (!remote) return;
  const ends = lazy.directory.rawEnds();
  const ranges: Range[] = [];
  for (const index of indexes) ranges.push([lazy.directory.localHeaderOffset(index), ends[index]!]);
  await ensureRanges(session.record.source_path, ranges, { etag: remote.etag, signal });
}
