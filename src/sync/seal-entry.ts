/**
 * Changed and added entries of an encrypted archive are written back encrypted (DESIGN.md, "Encryption and
 * passwords"): WinZip AES-256, AE-2, under the password the archive was read with (zip/ciphers/password.ts). The
 * data is compressed first, then encrypted: the salt and verifier before it, the MAC after, method 99 with the
 * method under it in a 0x9901 field, flag bit 0, and no CRC-32 (AE-2: the MAC stands for it).
 */
import { ZipfsError } from '../base/errors.ts';
import { FLAG_ENCRYPTED } from '../zip/constants.ts';
import {
  METHOD_AES,
  aesExtraField,
  askPassword,
  anyMayBeLocked,
  sealingCipher,
  type ExtraField,
  type PackedDirectory,
  type PieceTransform,
} from '../zip/index.ts';

/** The sealing of one entry: its head, the transform of its pieces, and its tail after the last. */
export interface Seal {
  head: Uint8Array;
  transform: PieceTransform;
  tail(): Uint8Array;
  /** The entry's fields and extra fields as sealed: method 99, flag bit 0, the 0x9901 field (one, its own). */
  frame<T extends { flags: number; method: number }>(fields: T): T;
  extra(fields: ExtraField[], innerMethod: number): ExtraField[];
}

/**
 * The seal of an entry, when it is to be encrypted (`encrypted`: the entry was, or the archive has encrypted entries);
 * else undefined, and the entry is written plain, without an encrypted flag or an AES field it kept.
 */
export function sealFor(encrypted: boolean): Seal | undefined {
  if (!encrypted) return undefined;
  const cipher = sealingCipher();
  if (!cipher?.encryptor)
    throw new ZipfsError(
      'PERMISSION_DENIED',
      'Sync stopped before writing: an entry of this encrypted archive must be written back encrypted, and no ' +
        'password is given. Give it (ZIPFS_PASSWORD, --password-file FILE, or ZIPFS_PASSWORD_FILE) and sync again.',
    );
  const { head, transform, tail } = cipher.encryptor({
    name: '',
    flags: FLAG_ENCRYPTED,
    method: METHOD_AES,
    compressedSize: 0,
    uncompressedSize: 0,
    crc32: 0,
    localHeaderOffset: 0,
  });
  return {
    head,
    transform,
    tail,
    frame: (fields) => ({ ...fields, flags: fields.flags | FLAG_ENCRYPTED, method: METHOD_AES }),
    extra: (fields, innerMethod) => [...withoutAes(fields), aesExtraField(innerMethod)],
  };
}

/** Extra fields without a WinZip AES field: an entry written plain keeps none. */
export function withoutAes(fields: ExtraField[]): ExtraField[] {
  return fields.filter((field) => field.id !== 0x9901);
}

/** `data` sealed whole: head, encrypted data, tail. */
export function sealWhole(seal: Seal, data: Uint8Array): Uint8Array {
  const body = seal.transform.piece(data);
  const tail = seal.tail();
  const out = new Uint8Array(seal.head.length + body.length + tail.length);
  out.set(seal.head, 0);
  out.set(body, seal.head.length);
  out.set(tail, seal.head.length + body.length);
  return out;
}

/**
 * Whether additions are written encrypted: the archive has encrypted entries, and a password is given or, when there
 * are additions, can be asked for now (a terminal prompt, an MCP elicitation), before a byte of them is written.
 * Where none can be had they are written plain, as `zip -u` without -P adds files to an encrypted archive.
 */
export function sealsAdditions(directory: PackedDirectory | undefined, adding: boolean): boolean {
  if (!directory || !(sealingCipher() || adding) || !anyMayBeLocked(directory)) return false;
  return Boolean(sealingCipher() || (askPassword() && sealingCipher()));
}
