/**
 * Sync refuses to write a changed or moved encrypted entry: zipfs does not write encryption yet, and written again
 * the entry would lose it (plain bytes under its encrypted flag, or plaintext where the archive had ciphertext).
 * Deleting one is fine, and an unchanged one is copied raw, password or not.
 */
import { ZipfsError } from '../base/errors.ts';
import { invocation } from '../base/message-marks.ts';
import { quoted } from '../format/quote-name.ts';
import { encryptionOf } from '../zip/index.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';

export function assertNoLockedChanges(diff: WorkspaceDiff): void {
  const changed = new Set([...diff.modified, ...diff.renamed.map((move) => move.from)]);
  for (const record of diff.entries) {
    const kind = encryptionOf(record);
    if (!kind || !changed.has(record.path)) continue;
    throw new ZipfsError(
      'PERMISSION_DENIED',
      `Sync stopped before writing: ${quoted(record.path)} is an encrypted entry (${kind}) that the workspace ` +
        `changes or moves, and zipfs cannot write entries back encrypted yet. Nothing was written. Undo that ` +
        `change (or ${invocation('delete', { path: record.path })} to drop the entry), or decrypt the archive with ` +
        `its own tool and open the copy.`,
    );
  }
}
