/**
 * Sync refuses to write a changed or moved encrypted entry when no password is given: it is written back encrypted
 * under the archive's password (seal-entry.ts), and without one it would lose its encryption. Deleting one is fine,
 * and an unchanged one is copied raw, password or not.
 */
import { ZipfsError } from '../base/errors.ts';
import { invocation } from '../base/message-marks.ts';
import { quoted } from '../format/quote-name.ts';
import { askPassword, encryptionOf, sealingCipher } from '../zip/index.ts';
import type { WorkspaceDiff } from './workspace-diff.ts';

export function assertNoLockedChanges(diff: WorkspaceDiff): void {
  if (sealingCipher()) return;
  const changed = new Set([...diff.modified, ...diff.renamed.map((move) => move.from)]);
  for (const record of diff.entries) {
    const kind = encryptionOf(record);
    if (!kind || !changed.has(record.path)) continue;
    // Asked for now (a prompt on a terminal, an MCP elicitation): it is needed to write the entry back.
    if (askPassword() && sealingCipher()) return;
    throw new ZipfsError(
      'PERMISSION_DENIED',
      `Sync stopped before writing: ${quoted(record.path)} is an encrypted entry (${kind}) that the workspace ` +
        `changes or moves, and without the archive's password zipfs cannot write it back encrypted. Nothing was ` +
        `written. Give the password (ZIPFS_PASSWORD, --password-file FILE, or ZIPFS_PASSWORD_FILE) and sync again, ` +
        `or undo that change (${invocation('delete', { path: record.path })} drops the entry).`,
    );
  }
}
