/**
 * Encrypted entries and the registered layers (encryption-kind.ts says which encryption). An entry under a layer
 * zipfs knows but cannot unwrap (no cipher registered, no password) is "locked": it stays in the zip, listed and
 * copied raw, and a read of it is refused (lockedRefusal).
 */
import { ZipfsError } from '../base/errors.ts';
import { quoted } from '../format/quote-name.ts';
import { askPassword } from './ciphers/password.ts';
import { ciphers } from './codec-registry.ts';
import { encryptionOf, knownLayerFlags } from './encryption-kind.ts';
import type { PackedDirectory } from './packed-directory.ts';
import type { EntryLocation } from './types.ts';

export {
  cipherFacts,
  encryptionOf,
  innerMethodOf,
  EXTRA_AES,
  METHOD_AES,
  type EncryptionKind,
} from './encryption-kind.ts';

/** Whether `entry` is encrypted by a layer zipfs knows and no registered cipher unwraps it: it stays in the zip. */
export function lockedEntry(entry: EntryLocation): boolean {
  return knownLayerFlags(entry.flags) && !ciphers().some((layer) => layer.wraps(entry));
}

/**
 * Whether `entry` is locked even after the password source was asked (a prompt on a terminal, an MCP elicitation):
 * for what must decrypt it now (open extracting it, a read), not for what only lists it (inspect, ls).
 */
export function stillLocked(entry: EntryLocation): boolean {
  return lockedEntry(entry) && (!askPassword() || lockedEntry(entry));
}

/** Packed-directory form of lockedEntry's first test: true sends the caller to lockedEntry with the entry. */
export function mayBeLocked(flags: number): boolean {
  return knownLayerFlags(flags);
}

/** Whether any entry of `directory` is encrypted by a layer zipfs knows: an archive whose workspace holds plaintext. */
export function anyMayBeLocked(directory: PackedDirectory): boolean {
  for (let i = 0; i < directory.count; i++) if (mayBeLocked(directory.flags(i))) return true;
  return false;
}

/** The refusal of a read, extract or change of a locked entry: it stays in the zip, and sync copies it as it is. */
export function lockedRefusal(entry: Pick<EntryLocation, 'name' | 'flags' | 'method'>): ZipfsError {
  const kind = encryptionOf(entry) ?? 'zipcrypto';
  return new ZipfsError(
    'PERMISSION_DENIED',
    `Entry ${quoted(entry.name)} is encrypted (${kind}) and zipfs has no password for it, so it cannot be read, ` +
      `extracted or changed. It stays in the zip as it is: the archive's other entries are usable, and sync copies ` +
      `it unchanged. To read it, give the archive's password: ZIPFS_PASSWORD, or a file whose first line it is, ` +
      `named by --password-file FILE (CLI) or ZIPFS_PASSWORD_FILE (also an MCP server's setting); the CLI on a ` +
      `terminal asks for it.`,
  );
}
