/**
 * Which encryption an entry uses, read from its flags, method and extra field alone (DESIGN.md, "Encryption and
 * passwords"): traditional PKWARE encryption (ZipCrypto, APPNOTE 6.1) or WinZip AES (method 99, extra field
 * 0x9901, its strength byte 1/2/3 for 128/192/256 bits). Strong encryption (flag bit 6) is none zipfs knows.
 * Apart from encryption.ts so the cipher modules can ask it without the registry.
 */
import { FLAG_ENCRYPTED, FLAG_PATCHED, FLAG_STRONG_ENCRYPTION } from './constants.ts';
import { parseExtraFields } from './extra-fields.ts';
import type { EntryLocation, ZipEntry } from './types.ts';

export type EncryptionKind = 'zipcrypto' | 'aes-128' | 'aes-192' | 'aes-256';

export const METHOD_AES = 99;
export const EXTRA_AES = 0x9901;
const AES_BITS: Record<number, EncryptionKind> = { 1: 'aes-128', 2: 'aes-192', 3: 'aes-256' };

/** The flags of an entry encrypted by a layer zipfs knows: bit 0 alone, without strong encryption or patch data. */
export function knownLayerFlags(flags: number): boolean {
  return (flags & (FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION | FLAG_PATCHED)) === FLAG_ENCRYPTED;
}

/**
 * The encryption of an entry, or undefined when it has none zipfs knows. Without its extra field (`rawExtra`), a
 * WinZip AES entry is 'aes-256', the strength 7-Zip and WinZip write by default.
 */
export function encryptionOf(
  entry: Pick<EntryLocation, 'flags' | 'method'> & { rawExtra?: Uint8Array },
): EncryptionKind | undefined {
  if (!knownLayerFlags(entry.flags)) return undefined;
  if (entry.method !== METHOD_AES) return 'zipcrypto';
  const field = entry.rawExtra && parseExtraFields(entry.rawExtra).find((f) => f.id === EXTRA_AES);
  return (field && field.data.length >= 5 && AES_BITS[field.data[4]!]) || 'aes-256';
}

/** The compression method under an entry's encryption: WinZip AES keeps it in its extra field, else the entry's. */
export function innerMethodOf(entry: Pick<EntryLocation, 'flags' | 'method'> & { rawExtra?: Uint8Array }): number {
  if (entry.method !== METHOD_AES || !entry.rawExtra) return entry.method;
  const field = parseExtraFields(entry.rawExtra).find((f) => f.id === EXTRA_AES);
  return field && field.data.length >= 7 ? field.data[5]! | (field.data[6]! << 8) : entry.method;
}

/**
 * What an encryption layer reads of an entry besides its location (ZipCrypto's check byte may be the DOS time's,
 * WinZip AES's strength and inner method are in its extra field), for an entry that crosses to a worker: none for
 * a plain one, and a copy of the extra field (a view would carry the whole directory's buffer with it).
 */
export function cipherFacts(entry: Pick<ZipEntry, 'flags' | 'dosTime' | 'rawExtra'>): {
  dosTime?: number;
  rawExtra?: Uint8Array;
} {
  return knownLayerFlags(entry.flags) ? { dosTime: entry.dosTime, rawExtra: entry.rawExtra.slice() } : {};
}
