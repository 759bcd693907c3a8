/**
 * What a SIGINT or SIGTERM must undo before the process ends: paths this
 * process is filling (an open's staging folder, a sync's temporary archive,
 * hundreds of MB beside the user's zip) and the session locks it holds.
 *
 * The handlers are installed only while there is something to undo. A
 * JavaScript handler runs between calls, never during one: a process waiting
 * in a synchronous system call (reading a stdin nobody writes, writing to a
 * full pipe) would not stop at all. Without a handler a signal keeps its
 * default action and ends the process at once, wherever it waits; and with
 * one, zipfs's own work never waits in such a call (the zip and workspace
 * files are opened without blocking: files/regular-file.ts).
 */
import fs from 'node:fs';

const pending = new Set<string>();

const SIGNALS = [
  ['SIGINT', 130],
  ['SIGTERM', 143],
] as const;

const handlers = SIGNALS.map(([signal, code]) => [signal, () => stop(code)] as const);
let armed = false;

/** Removes `target` if the process is stopped before `keepOnExit` or its own removal. */
export function removeOnExit(target: string): void {
  pending.add(target);
  if (armed) return;
  for (const [signal, handler] of handlers) process.on(signal, handler);
  armed = true;
}

/** `target` was finished (renamed into place) or removed by its owner. */
export function keepOnExit(target: string): void {
  pending.delete(target);
  if (!armed || pending.size > 0) return;
  for (const [signal, handler] of handlers) process.off(signal, handler);
  armed = false;
}

/** Removes what is still listed and exits with the signal's conventional code (128 + its number). */
function stop(code: number): never {
  for (const target of pending) fs.rmSync(target, { recursive: true, force: true });
  pending.clear();
  process.exit(code);
}
