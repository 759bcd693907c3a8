/**
 * A merge that stopped at conflicts by lines (sync/line-merge.ts) wrote git's markers into
 * workspace files; `merging.json` beside the manifest remembers which, and the zip's entry each
 * was merged with (its CRC-32 and size). While a file it names still holds markers, every sync
 * refuses; once the markers are resolved, the file is the resolution: the next merge takes it
 * whole while the zip's entry is still the one it was merged with, instead of merging the
 * resolution with the same change again. A sync that writes the zip forgets it (the base moves on).
 */
import fs from 'node:fs';
import path from 'node:path';

export const MERGE_STATE_FILE = 'merging.json';

/** The zip's entry a marked file was merged with. */
export interface MergedWith {
  crc32: number;
  size: number;
}

/** Marked files by workspace path. */
export type MergeState = Record<string, MergedWith>;

function statePath(dir: string): string {
  return path.join(dir, MERGE_STATE_FILE);
}

/** The files marked by the session's last merge; empty when there is none (or its file is unreadable). */
export function readMergeState(dir: string): MergeState {
  try {
    const value: unknown = JSON.parse(fs.readFileSync(statePath(dir), 'utf8'));
    if (!value || typeof value !== 'object' || Array.isArray(value)) return {};
    const state: MergeState = {};
    for (const [at, entry] of Object.entries(value as Record<string, unknown>)) {
      const { crc32, size } = (entry ?? {}) as Partial<MergedWith>;
      if (typeof crc32 === 'number' && typeof size === 'number') state[at] = { crc32, size };
    }
    return state;
  } catch {
    return {};
  }
}

/** Adds `marked` to the session's merge state (written beside it and renamed over it). */
export function addToMergeState(dir: string, marked: MergeState): void {
  const next = `${statePath(dir)}.${process.pid}.tmp`;
  fs.writeFileSync(next, JSON.stringify({ ...readMergeState(dir), ...marked }));
  fs.renameSync(next, statePath(dir));
}

/** Forgets the merge state: the zip was written, and the base moved on. */
export function clearMergeState(dir: string): void {
  fs.rmSync(statePath(dir), { force: true });
}
