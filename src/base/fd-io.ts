/**
 * Whole reads and writes on a file descriptor: readSync and writeSync may
 * move fewer bytes than asked (signals, pipes, large requests), so every
 * caller that needs all of them loops; these are that loop, once.
 */
import fs from 'node:fs';

/** Writes all of `bytes` at `position`, or at the descriptor's own position (O_APPEND, a pipe) when it is null. */
export function writeFully(fd: number, bytes: Uint8Array, position: number | null = null): void {
  for (let done = 0; done < bytes.length; )
    done += fs.writeSync(fd, bytes, done, bytes.length - done, position === null ? null : position + done);
}

/** Fills `buffer` from `position` until it is full or the file ends; returns how many bytes were read. */
export function readFully(fd: number, buffer: Uint8Array, position: number): number {
  let got = 0;
  for (let n; got < buffer.length && (n = fs.readSync(fd, buffer, got, buffer.length - got, position + got)) > 0; )
    got += n;
  return got;
}
