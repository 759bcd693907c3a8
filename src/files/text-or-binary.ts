/**
 * What a file holds, decided once per file and the same way for grep, read
 * and edit: a NUL byte in the first 8,000 bytes makes it binary (as git and
 * grep decide). read and edit also need text to be valid UTF-8, or a page
 * would come back mangled: files up to 64 MiB are checked whole. The same
 * pass takes the file's SHA-256, which read returns for edit's precondition.
 */
import fs from 'node:fs';

export const BINARY_PROBE_BYTES = 8000;
const CHECK_WHOLE_UP_TO_BYTES = 64 << 20;
const PIECE_BYTES = 1 << 20;

export function looksBinary(head: Uint8Array): boolean {
  return head.subarray(0, BINARY_PROBE_BYTES).includes(0);
}

export type FileText = 'utf-8' | 'binary' | 'not-utf-8' | 'large-text';

/** Why a file is not UTF-8 text that read by lines and edit can take, in words. */
export function notTextReason(kind: Exclude<FileText, 'utf-8'>): string {
  return kind === 'binary' ? 'binary' : kind === 'large-text' ? 'over 64 MiB' : 'not UTF-8 text';
}

/**
 * The open file `fd` of `size` bytes: UTF-8 text, binary, text in another encoding, or text too large to check whole;
 * and its SHA-256.
 */
export function scanFile(fd: number, size: number): { kind: FileText; sha256: string } {
  const hash = new Bun.CryptoHasher('sha256');
  const piece = Buffer.allocUnsafe(Math.max(1, Math.min(size, PIECE_BYTES)));
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let kind: FileText | undefined = size > CHECK_WHOLE_UP_TO_BYTES ? 'large-text' : undefined;
  for (let at = 0, n; at < size && (n = fs.readSync(fd, piece, 0, piece.length, at)) > 0; at += n) {
    const bytes = piece.subarray(0, n);
    hash.update(bytes);
    if (at === 0 && looksBinary(bytes)) kind = 'binary';
    if (kind !== undefined) continue;
    try {
      decoder.decode(bytes, { stream: true });
    } catch {
      kind = 'not-utf-8';
    }
  }
  if (kind === undefined) {
    try {
      decoder.decode();
      kind = 'utf-8';
    } catch {
      kind = 'not-utf-8';
    }
  }
  return { kind, sha256: hash.digest('hex') };
}
