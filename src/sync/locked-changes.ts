/**
 * Sync refuses to write a changed or renamed encrypted entry it has no key for (encryption.ts): written again it
 * would lose its encryption (plain bytes under its encrypted flags, or plaintext where the archive had ciphertext).
 * Deleting one is fine, and an unchanged one is copied raw.
 */
import { ZipfsError } from '../base/errors.ts';
import { invocation } from '../base/message-marks.ts';
import { quoted } from '../format/quote-name.ts';
import { lockedEntry, mayBeLocked } from '../zip/index.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';

export function assertNoLockedChanges(diff: WorkspaceDiff): void {
  const changed = new Set([...diff.modified, ...diff.renamed.map((move) => move.from)]);
  for (const record of diff.entries) {
    if (!mayBeLocked(record.flags) || !changed.has(record.path)) continue;
    const entry = { name: record.name, flags: record.flags, method: record.method };
    if (!lockedEntry({ ...entry, compressedSize: 0, uncompressedSize: 0, crc32: 0, localHeaderOffset: 0 })) continue;
    throw new ZipfsError(
      'PERMISSION_DENIED',
      `Sync stopped before writing: ${quoted(record.path)} is an encrypted entry (no password given) that the ` +
        `workspace changes or moves, and zipfs cannot write it back encrypted. Nothing was written. Undo that change ` +
        `(${invocation('delete', { path: record.path })} drops the entry instead), or decrypt the archive with its ` +
        `own tool and open the copy.`,
    );
  }
}
