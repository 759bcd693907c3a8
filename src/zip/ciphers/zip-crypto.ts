/**
 * Traditional PKWARE encryption (ZipCrypto, APPNOTE 6.1): three 32-bit keys stirred by the password and then by
 * each plaintext byte, a 12-byte header before the data whose last byte checks the password (the CRC-32's high
 * byte, or the DOS time's high byte when the sizes follow in a data descriptor, flag bit 3). The check is found
 * when the decryptor is made, before any byte is decoded: a wrong password is refused, never garbage.
 */
import { ZipfsError } from '../../base/errors.ts';
import { quoted } from '../../format/quote-name.ts';
import type { EntryCipher, PieceTransform } from '../codec-types.ts';
import { FLAG_DATA_DESCRIPTOR } from '../constants.ts';
import { encryptionOf } from '../encryption-kind.ts';
import type { EntryLocation } from '../types.ts';

let crcTable: Uint32Array | undefined;

/** The CRC-32 table, built when a first entry is decrypted: built at load, it cost every command 0.5 ms to start. */
function table(): Uint32Array {
  return (crcTable ??= new Uint32Array(256).map((_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  }));
}

class Keys {
  k0 = 0x12345678;
  k1 = 0x23456789;
  k2 = 0x34567890;
  private readonly crc = table();

  constructor(password: Uint8Array) {
    for (const byte of password) this.update(byte);
  }

  update(byte: number): void {
    this.k0 = (this.crc[(this.k0 ^ byte) & 0xff]! ^ (this.k0 >>> 8)) >>> 0;
    this.k1 = (Math.imul((this.k1 + (this.k0 & 0xff)) >>> 0, 134775813) + 1) >>> 0;
    this.k2 = (this.crc[(this.k2 ^ (this.k1 >>> 24)) & 0xff]! ^ (this.k2 >>> 8)) >>> 0;
  }

  /** Decrypts `data` in place. */
  decrypt(data: Uint8Array): Uint8Array {
    for (let i = 0; i < data.length; i++) {
      const t = (this.k2 | 2) & 0xffff;
      const plain = data[i]! ^ ((Math.imul(t, t ^ 1) >>> 8) & 0xff);
      data[i] = plain;
      this.update(plain);
    }
    return data;
  }
}

const wrongPasswords = new WeakSet<Error>();

/** Whether `error` is wrongPassword's refusal (an MCP connection then forgets the password it was given). */
export function isWrongPassword(error: unknown): boolean {
  return error instanceof Error && wrongPasswords.has(error);
}

/** The refusal of a password that does not fit an entry (its check value, or AES's verifier, differs). */
export function wrongPassword(entry: Pick<EntryLocation, 'name'>): ZipfsError {
  const error = new ZipfsError(
    'PERMISSION_DENIED',
    `The password does not fit entry ${quoted(entry.name)}: its check value differs, so nothing of it was read. ` +
      `Give the archive's password (ZIPFS_PASSWORD, or a file named by --password-file or ZIPFS_PASSWORD_FILE).`,
  );
  wrongPasswords.add(error);
  return error;
}

export function zipCryptoCipher(password: Uint8Array): EntryCipher {
  return {
    name: 'ZipCrypto',
    wraps: (entry) => encryptionOf(entry) === 'zipcrypto',
    innerMethod: (entry) => entry.method,
    overhead: () => ({ head: 12, tail: 0 }),
    decryptor(entry, head): PieceTransform {
      const keys = new Keys(password);
      const header = keys.decrypt(head.slice());
      const dosTime = entry.dosTime;
      const check =
        entry.flags & FLAG_DATA_DESCRIPTOR && dosTime !== undefined ? (dosTime >>> 8) & 0xff : entry.crc32 >>> 24;
      if (header[11] !== check) throw wrongPassword(entry);
      return { piece: (chunk) => keys.decrypt(chunk.slice()), end() {} };
    },
  };
}
