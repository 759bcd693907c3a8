/**
 * Whether a file is text, decided once per file, the same way for grep and
 * read: a NUL byte in the first 8,000 bytes makes it binary (as git and grep
 * decide). read also needs the text to be valid UTF-8, or a page would come
 * back mangled: files up to 64 MiB are checked whole, in pieces; in larger
 * ones only the page read can be checked.
 */
import fs from 'node:fs';

export const BINARY_PROBE_BYTES = 8000;
const CHECK_WHOLE_UP_TO_BYTES = 64 << 20;
const CHECK_PIECE_BYTES = 1 << 20;

export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_PROBE_BYTES).includes(0);
}

export type FileText = 'utf-8' | 'binary' | 'not-utf-8' | 'large-text';

/** What the open file `fd` of `size` bytes holds: UTF-8 text, binary, text in another encoding, or text too large to check whole. */
export function classifyFile(fd: number, size: number): FileText {
  const head = Buffer.allocUnsafe(Math.min(size, BINARY_PROBE_BYTES));
  const got = fs.readSync(fd, head, 0, head.length, 0);
  if (looksBinary(head.subarray(0, got))) return 'binary';
  if (size > CHECK_WHOLE_UP_TO_BYTES) return 'large-text';
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const piece = Buffer.allocUnsafe(Math.min(size, CHECK_PIECE_BYTES));
  try {
    for (let at = 0, n; at < size && (n = fs.readSync(fd, piece, 0, piece.length, at)) > 0; at += n) decoder.decode(piece.subarray(0, n), { stream: true });
    decoder.decode();
  } catch {
    return 'not-utf-8';
  }
  return 'utf-8';
}
