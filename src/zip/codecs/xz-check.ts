/**
 * The integrity checks an xz block may carry (xz file format 1.1.0, 2.1.1.2 and 3.4): none,
 * CRC32, CRC64 (ECMA-182, reflected, as xz uses it) or SHA-256. CRC32 and SHA-256 come from the
 * runtime; CRC64 is table-driven here, on two 32-bit halves (no BigInt in the loop).
 */
import { crc32 } from '../codec.ts';
import { damaged } from './lzma-input.ts';

export interface BlockCheck {
  readonly size: number;
  update(piece: Uint8Array): void;
  /** The check's bytes as xz stores them, for the data given since the last digest; starts afresh. */
  digest(): Uint8Array;
}

/**
 * Slicing by 4: table k (at k * 256) gives a byte's effect 8k bits on, low halves, then the high
 * halves at 1024 + k * 256. Made on first use: a process that meets no CRC64 builds none.
 */
let tables: Uint32Array | undefined;

function makeTables(): Uint32Array {
  const t = new Uint32Array(2048);
  for (let n = 0; n < 256; n++) {
    // Polynomial 0xC96C5795D7870F42, reflected.
    let lo = n;
    let hi = 0;
    for (let k = 0; k < 8; k++) {
      const carry = lo & 1;
      lo = ((lo >>> 1) | (hi << 31)) >>> 0;
      hi >>>= 1;
      if (carry) {
        lo = (lo ^ 0xd7870f42) >>> 0;
        hi = (hi ^ 0xc96c5795) >>> 0;
      }
    }
    t[n] = lo;
    t[1024 + n] = hi;
  }
  for (let k = 256; k < 1024; k += 256)
    for (let n = 0; n < 256; n++) {
      const lo = t[k - 256 + n]!;
      const hi = t[1024 + k - 256 + n]!;
      t[k + n] = ((lo >>> 8) | (hi << 24)) ^ t[lo & 0xff]!;
      t[1024 + k + n] = (hi >>> 8) ^ t[1024 + (lo & 0xff)]!;
    }
  return t;
}

/** CRC64 of `data`, chained through the halves of the previous value (already inverted as xz stores it). */
export function crc64(data: Uint8Array, previous: [number, number] = [0, 0]): [number, number] {
  const t = (tables ??= makeTables());
  let lo = ~previous[0];
  let hi = ~previous[1];
  let i = 0;
  for (const end = data.length - 3; i < end; i += 4) {
    const w = lo ^ (data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24));
    const a = w & 0xff;
    const b = (w >>> 8) & 0xff;
    const c = (w >>> 16) & 0xff;
    const d = w >>> 24;
    lo = hi ^ t[768 + a]! ^ t[512 + b]! ^ t[256 + c]! ^ t[d]!;
    hi = t[1792 + a]! ^ t[1536 + b]! ^ t[1280 + c]! ^ t[1024 + d]!;
  }
  for (; i < data.length; i++) {
    const at = (lo ^ data[i]!) & 0xff;
    lo = ((lo >>> 8) | (hi << 24)) ^ t[at]!;
    hi = (hi >>> 8) ^ t[1024 + at]!;
  }
  return [~lo >>> 0, ~hi >>> 0];
}

function littleEndian(...words: number[]): Uint8Array {
  const out = new Uint8Array(words.length * 4);
  const view = new DataView(out.buffer);
  words.forEach((word, i) => view.setUint32(i * 4, word, true));
  return out;
}

const NONE: BlockCheck = { size: 0, update() {}, digest: () => new Uint8Array(0) };

/** Check sizes by type (a type xz reserves still has a size: a reader skips it or refuses). */
const SIZES = [0, 4, 4, 4, 8, 8, 8, 16, 16, 16, 32, 32, 32, 64, 64, 64];

/** The check of type `type` (the stream flags' low nibble). */
export function blockCheck(type: number): BlockCheck {
  if (type === 0) return NONE;
  if (type === 1) {
    let crc = 0;
    return {
      size: 4,
      update: (piece) => {
        crc = crc32(piece, crc);
      },
      digest: () => {
        const out = littleEndian(crc);
        crc = 0;
        return out;
      },
    };
  }
  if (type === 4) {
    let crc: [number, number] = [0, 0];
    return {
      size: 8,
      update: (piece) => {
        crc = crc64(piece, crc);
      },
      digest: () => {
        const out = littleEndian(crc[0], crc[1]);
        crc = [0, 0];
        return out;
      },
    };
  }
  if (type === 10) {
    let hasher = new Bun.CryptoHasher('sha256');
    return {
      size: 32,
      update: (piece) => hasher.update(piece),
      digest: () => {
        const out = new Uint8Array(hasher.digest());
        hasher = new Bun.CryptoHasher('sha256');
        return out;
      },
    };
  }
  throw damaged(
    `xz data uses integrity check type ${type} (${SIZES[type] ?? '?'} bytes), which zipfs does not know; ` +
      'zipfs reads xz with no check, CRC32, CRC64 or SHA-256',
  );
}
