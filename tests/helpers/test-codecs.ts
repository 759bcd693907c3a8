/**
 * A test-only codec (run-length pairs, method 250) and encryption layer (XOR under two magic
 * bytes), registered in-process by tests/zip/codec-registry.test.ts, and a zip of entries written with them.
 * They count their calls, so a test sees which path used them.
 */
import fs from 'node:fs';
import { InflateError, crc32 } from '../../src/zip/codec.ts';
import {
  FileSource,
  ZipWriter,
  encodeWhole,
  readCentralDirectory,
  type Codec,
  type EntryCipher,
  type ZipEntry,
} from '../../src/zip/index.ts';

export const RLE = 250;

/** Run-length pairs (count 1-255, byte): small enough to read at a glance, and it can lie about its size like deflate. */
function rleEncode(data: Uint8Array): Uint8Array {
  const out: number[] = [];
  for (let at = 0; at < data.length; ) {
    let run = 1;
    while (run < 255 && data[at + run] === data[at]) run++;
    out.push(run, data[at]!);
    at += run;
  }
  return new Uint8Array(out);
}

/** Decodes pairs that may be split across pieces, stopping once past `declared` bytes as deflate does. */
function rleDecoder(declared: number, onOutput: (chunk: Uint8Array) => void) {
  let carry: number | undefined;
  let produced = 0;
  return (chunk: Uint8Array) => {
    const out: number[] = [];
    for (const byte of chunk) {
      if (carry === undefined) carry = byte;
      else {
        for (let i = 0; i < carry; i++) out.push(byte);
        carry = undefined;
      }
    }
    produced += out.length;
    if (produced > declared) throw new InflateError(`inflates to more than the declared ${declared} bytes`, true);
    onOutput(new Uint8Array(out));
  };
}

export const used = { decode: 0, decodeStream: 0, encode: 0, encodePiece: 0 };
export const rle: Codec = {
  method: RLE,
  name: 'test-rle',
  versionNeeded: 63,
  decode(data, declared) {
    used.decode++;
    const pieces: Uint8Array[] = [];
    rleDecoder(declared, (piece) => pieces.push(piece))(data);
    return Buffer.concat(pieces);
  },
  async decodeStream(input, declared, onOutput) {
    used.decodeStream++;
    const take = rleDecoder(declared, onOutput);
    for (const chunk of input) take(chunk);
  },
  encoder: {
    encode(data) {
      used.encode++;
      return rleEncode(data);
    },
    encodePiece(data) {
      used.encodePiece++;
      return rleEncode(data); // pairs never span pieces, so encoded pieces concatenate
    },
  },
};

/** A toy layer: two magic bytes, then the codec's data XORed with 0x5a. */
const XOR_HEAD = new Uint8Array([0x58, 0x52]);
const xor = (data: Uint8Array) => data.map((byte) => byte ^ 0x5a);
export const xorCipher: EntryCipher = {
  name: 'test-xor',
  wraps: (entry) => (entry.flags & 1) !== 0,
  innerMethod: (entry) => entry.method,
  overhead: () => ({ head: XOR_HEAD.length, tail: 0 }),
  decryptor(_entry, head) {
    return {
      piece: xor,
      end() {
        if (head[0] !== XOR_HEAD[0] || head[1] !== XOR_HEAD[1]) throw new Error('wrong password');
      },
    };
  },
};

export const text = Buffer.from('aaaaaaaaaabbbbbbbbbbbbbbbbbbbbccccc\n'.repeat(2000));

export interface Made {
  name: string;
  method: number;
  data: Uint8Array;
  flags?: number;
  /** Written as the header's uncompressed size (a lie, when it differs from the data's). */
  declared?: number;
}

/** A zip of these entries, their data encoded with the codecs registered now, written by zipfs's own writer. */
export function writeZip(file: string, entries: Made[]): ZipEntry[] {
  const fd = fs.openSync(file, 'w');
  try {
    const writer = new ZipWriter(fd);
    for (const made of entries) {
      const { method, data } = encodeWhole(made.data, made.method);
      const body = made.flags ? Buffer.concat([XOR_HEAD, xor(data)]) : data;
      const fields = {
        versionMadeBy: 0x314,
        flags: made.flags ?? 0,
        method,
        dosTime: 0,
        dosDate: 0x21,
        crc32: crc32(made.data),
        compressedSize: body.length,
        uncompressedSize: made.declared ?? made.data.length,
        rawName: new TextEncoder().encode(made.name),
        comment: new Uint8Array(0),
        internalAttributes: 0,
        externalAttributes: (0o100644 << 16) >>> 0,
      };
      writer.addEntry(fields, [], [], body);
    }
    writer.finish(new Uint8Array(0), false);
  } finally {
    fs.closeSync(fd);
  }
  const source = new FileSource(file);
  try {
    return readCentralDirectory(source).entries;
  } finally {
    source.close();
  }
}
