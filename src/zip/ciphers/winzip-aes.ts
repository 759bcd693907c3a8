/**
 * WinZip AES (AE-1 and AE-2): method 99, extra field 0x9901 (version, "AE", strength 1/2/3, the method under it).
 * Keys from PBKDF2-HMAC-SHA1 (1000 iterations) over the password and a salt of 8/12/16 bytes: an AES key, an
 * HMAC-SHA1 key of the same length, and a 2-byte password verifier stored after the salt. The data is AES-CTR with
 * a little-endian counter from 1 (not node's big-endian CTR: the keystream is made here, counter blocks through
 * aes-ecb), followed by the first 10 bytes of HMAC-SHA1 over the ciphertext. AE-2 records no CRC-32: the MAC
 * stands for it. The verifier is checked when the decryptor is made, the MAC after the last piece.
 */
import type Crypto from 'node:crypto';
import type { EntryCipher, PieceTransform } from '../codec-types.ts';
import { EXTRA_AES, METHOD_AES } from '../encryption-kind.ts';
import { parseExtraFields } from '../extra-fields.ts';
import type { EntryLocation } from '../types.ts';
import { wrongPassword } from './zip-crypto.ts';

// node:crypto (and the streams under it) costs every command about 25 ms to load: loaded when an AES entry is met.
let cryptoModule: typeof Crypto | undefined;
function nodeCrypto(): typeof Crypto {
  return (cryptoModule ??= process.getBuiltinModule('node:crypto'));
}

const MAC_BYTES = 10;
const SALT_BYTES: Record<number, number> = { 1: 8, 2: 12, 3: 16 };

/** The 0x9901 field of an entry: its strength (1/2/3), vendor version (1: AE-1, 2: AE-2) and inner method. */
function aesField(entry: EntryLocation): { strength: number; version: number; method: number } | undefined {
  const raw = entry.rawExtra;
  const field = raw && parseExtraFields(raw).find((f) => f.id === EXTRA_AES);
  if (!field || field.data.length < 7) return undefined;
  const d = field.data;
  return { version: d[0]! | (d[1]! << 8), strength: d[4]!, method: d[5]! | (d[6]! << 8) };
}

/** AES-CTR with WinZip's little-endian counter, from 1, over pieces of any length. */
class Keystream {
  private readonly ecb: Crypto.Cipheriv;
  private counter = 1n;
  private block = new Uint8Array(0);
  private used = 0;

  constructor(bits: number, key: Uint8Array) {
    this.ecb = nodeCrypto().createCipheriv(`aes-${bits}-ecb`, key, null).setAutoPadding(false);
  }

  xor(data: Uint8Array): Uint8Array {
    const out = new Uint8Array(data.length);
    let i = 0;
    while (i < data.length) {
      if (this.used === this.block.length) this.refill(data.length - i);
      const n = Math.min(this.block.length - this.used, data.length - i);
      for (let k = 0; k < n; k++) out[i + k] = data[i + k]! ^ this.block[this.used + k]!;
      this.used += n;
      i += n;
    }
    return out;
  }

  /** The keystream for the next `want` bytes (whole blocks), in one aes-ecb call. */
  private refill(want: number): void {
    const blocks = Math.ceil(want / 16);
    const counters = Buffer.alloc(blocks * 16);
    for (let b = 0; b < blocks; b++) {
      counters.writeBigUInt64LE(this.counter & 0xffffffffffffffffn, b * 16);
      this.counter++;
    }
    this.block = this.ecb.update(counters);
    this.used = 0;
  }
}

export function winZipAesCipher(password: Uint8Array): EntryCipher {
  return {
    name: 'WinZip AES',
    wraps: (entry) => entry.method === METHOD_AES && aesField(entry) !== undefined,
    innerMethod: (entry) => aesField(entry)!.method,
    overhead: (entry) => ({ head: SALT_BYTES[aesField(entry)!.strength]! + 2, tail: MAC_BYTES }),
    skipsCrc: (entry) => aesField(entry)!.version === 2,
    encryptor() {
      // AES-256 (strength 3), AE-2: the archive's writers (7-Zip, WinZip) read it, and the MAC stands for the CRC.
      const salt = nodeCrypto().randomBytes(16);
      const derived = nodeCrypto().pbkdf2Sync(password, salt, 1000, 2 * 32 + 2, 'sha1');
      const stream = new Keystream(256, derived.subarray(0, 32));
      const mac = nodeCrypto().createHmac('sha1', derived.subarray(32, 64));
      return {
        head: new Uint8Array([...salt, derived[64]!, derived[65]!]),
        transform: {
          piece(chunk: Uint8Array) {
            const sealed = stream.xor(chunk);
            mac.update(sealed);
            return sealed;
          },
          end() {},
        },
        tail: () => new Uint8Array(mac.digest().subarray(0, MAC_BYTES)),
      };
    },
    decryptor(entry, head, tail): PieceTransform {
      const { strength } = aesField(entry)!;
      const keyBytes = 8 * (strength + 1);
      const salt = head.subarray(0, head.length - 2);
      const derived = nodeCrypto().pbkdf2Sync(password, salt, 1000, 2 * keyBytes + 2, 'sha1');
      if (derived[2 * keyBytes] !== head[head.length - 2] || derived[2 * keyBytes + 1] !== head[head.length - 1])
        throw wrongPassword(entry);
      const stream = new Keystream(keyBytes * 8, derived.subarray(0, keyBytes));
      const mac = nodeCrypto().createHmac('sha1', derived.subarray(keyBytes, 2 * keyBytes));
      return {
        piece(chunk) {
          mac.update(chunk);
          return stream.xor(chunk);
        },
        end() {
          const sum = mac.digest().subarray(0, MAC_BYTES);
          if (!nodeCrypto().timingSafeEqual(sum, tail)) throw new Error('its WinZip AES authentication code differs');
        },
      };
    },
  };
}

/** The 0x9901 field of an entry written under AES-256, AE-2, over `innerMethod`. */
export function aesExtraField(innerMethod: number): { id: number; data: Uint8Array } {
  return { id: EXTRA_AES, data: new Uint8Array([2, 0, 0x41, 0x45, 3, innerMethod & 0xff, innerMethod >>> 8]) };
}
