/**
 * What `/proc/self/fd/N/...` paths (beneath.ts) stand for, so a message names
 * the folder a person knows instead of a descriptor number. Each folder
 * descriptor is recorded when it is opened, with the path it was reached by;
 * an entry stays after the descriptor is closed (errors are often reported
 * after) until the number is reused.
 */
const PROC_FD = /^\/proc\/self\/fd\/(\d+)(?=\/|$)/;
const shownByFd = new Map<number, string>();

export function recordFolder(fd: number, shown: string): void {
  shownByFd.set(fd, shown);
}

/** `path` with a leading `/proc/self/fd/N` replaced by the folder it was opened as. */
export function shownPath(path: string): string {
  return path.replace(PROC_FD, (whole, fd: string) => shownByFd.get(Number(fd)) ?? whole);
}

/** A system error's path and message, rewritten with shownPath. */
export function showPathsOf<T>(error: T): T {
  if (!(error instanceof Error)) return error;
  const withPath = error as Error & { path?: unknown; dest?: unknown };
  if (typeof withPath.path === 'string') withPath.path = shownPath(withPath.path);
  if (typeof withPath.dest === 'string') withPath.dest = shownPath(withPath.dest);
  if (error.message.includes('/proc/self/fd/'))
    error.message = error.message.replace(/\/proc\/self\/fd\/\d+(?=\/|\b)/g, (found) => shownPath(found));
  return error;
}
