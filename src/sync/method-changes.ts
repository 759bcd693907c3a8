/**
 * A rewritten entry keeps its compression method where zipfs can write it (stored, deflate, zstd) and is deflated
 * otherwise (entry-encode.ts, methodToWrite); sync's answer names each entry whose method changed so
 * ("a.txt: bzip2 -> deflate"), since a reader of the zip may have chosen the method. An unchanged entry is copied
 * raw, its method with it. Encrypted entries (WinZip AES, method 99 with the method inside) are left out.
 */
import { METHOD_NAMES } from '../zip/constants.ts';
import { METHOD_AES, methodToWrite } from '../zip/index.ts';
import type { EntryRecord } from '../session/manifest.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';

const named = (method: number) => METHOD_NAMES[method] ?? `method ${method}`;

/** The base's files sync rewrites (modified, or renamed), each with the path it is written under. */
function rewritten(diff: WorkspaceDiff): { record: EntryRecord; path: string }[] {
  const out: { record: EntryRecord; path: string }[] = [];
  for (const record of diff.entries) {
    const state = diff.states.get(record.index);
    if (record.type === 'dir' || record.method === METHOD_AES) continue;
    if (state === 'modified' || state === 'renamed')
      out.push({ record, path: diff.renames.get(record.index) ?? record.path });
  }
  return out;
}

function said(list: { path: string; from: number; to: number }[]): string[] {
  return list
    .filter(({ from, to }) => from !== to)
    .map(({ path, from, to }) => `${path}: ${named(from)} -> ${named(to)}`);
}

/** What a sync would change: each rewritten entry against the method it would be written with. */
export function methodChangesPlanned(diff: WorkspaceDiff): string[] {
  return said(
    rewritten(diff).map(({ record, path }) => ({ path, from: record.method, to: methodToWrite(record.method) })),
  );
}

/** What a sync changed: each rewritten entry against its entry in the archive written (`next`, by path). */
export function methodChangesWritten(diff: WorkspaceDiff, next: readonly EntryRecord[]): string[] {
  const changed = rewritten(diff);
  if (changed.length === 0) return [];
  const wanted = new Map(changed.map(({ path, record }) => [path, record.method]));
  const list: { path: string; from: number; to: number }[] = [];
  for (const entry of next) {
    const from = wanted.get(entry.path);
    if (from !== undefined && entry.method !== METHOD_AES) list.push({ path: entry.path, from, to: entry.method });
  }
  return said(list);
}
