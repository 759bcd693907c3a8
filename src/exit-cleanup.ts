/**
 * Paths this process is filling that must not outlive it: an open's staging
 * folder, a sync's temporary archive (hundreds of MB beside the user's zip).
 * The SIGINT/SIGTERM handler in main.ts removes whatever is still listed.
 */
import fs from 'node:fs';

const pending = new Set<string>();

/** Removes `target` if the process is stopped before `keepOnExit` or its own removal. */
export function removeOnExit(target: string): void {
  pending.add(target);
}

/** `target` was finished (renamed into place) or removed by its owner. */
export function keepOnExit(target: string): void {
  pending.delete(target);
}

export function removeAllOnExit(): void {
  for (const target of pending) fs.rmSync(target, { recursive: true, force: true });
  pending.clear();
}
