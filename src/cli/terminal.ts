/**
 * Standard output and error for the CLI, written with plain synchronous
 * writes. `process.stdout` and `node:tty` load Node's stream machinery, about
 * 10-15 ms of a compiled binary's start-up, more than a whole `status` needs;
 * a CLI call writes its answer once, so streams buy it nothing.
 */
import fs from 'node:fs';
import { sleepSync } from '../base/sleep.ts';
import { terminalsAreDevices } from '../rules/platform.ts';

export interface Output {
  /** True when the descriptor is a terminal: colours and progress bars are for people. */
  readonly isTTY: boolean;
  write(text: string): void;
  /** Bytes as they are (a binary file read to a pipe). */
  writeBytes(bytes: Uint8Array): void;
}

let devNull: number | undefined;

/**
 * Whether `fd` is a terminal. Unix terminals are character devices; so is
 * /dev/null, the one other character device output is commonly sent to, and
 * it is told apart by its device number. Windows asks the runtime.
 */
export function isTerminal(fd: number): boolean {
  if (!terminalsAreDevices())
    return (fd === 0 ? process.stdin : fd === 1 ? process.stdout : process.stderr).isTTY === true;
  try {
    const stats = fs.fstatSync(fd);
    if (!stats.isCharacterDevice()) return false;
    devNull ??= fs.statSync('/dev/null').rdev;
    return stats.rdev !== devNull;
  } catch {
    return false;
  }
}

/** Writes all of `data`; a non-blocking pipe that is full (EAGAIN) is waited on, not dropped. */
function writeAll(fd: number, data: string | Uint8Array): void {
  const bytes = typeof data === 'string' ? Buffer.from(data) : data;
  for (let done = 0; done < bytes.length; ) {
    try {
      done += fs.writeSync(fd, bytes, done, bytes.length - done);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
      sleepSync(1);
    }
  }
}

export function fdOutput(fd: number): Output {
  return { isTTY: isTerminal(fd), write: (text) => writeAll(fd, text), writeBytes: (bytes) => writeAll(fd, bytes) };
}
