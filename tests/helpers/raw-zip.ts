/**
 * A deliberately naive zip writer for tests: it writes exactly what it is told,
 * including lies (wrong sizes, unsafe names, overlapping data), so the reader's
 * defences can be tested against archives no honest tool would produce.
 */
import zlib from 'node:zlib';
import { BufferSource, readCentralDirectory } from '../../src/zip/index.ts';

export interface RawEntry {
  name: string;
  data?: Uint8Array | string;
  method?: 0 | 8;
  /** Unix mode bits (e.g. 0o100644, 0o120777 for a symlink); sets "made by Unix". */
  unixMode?: number;
  /** Overrides the uncompressed size in both headers, to make the archive lie consistently. */
  declaredSize?: number;
  flags?: number;
  /** Reuse the local header and data of an earlier entry (an overlapping-entry bomb). */
  shareDataOf?: number;
  mtime?: Date;
}

function u16(n: number): Buffer {
  const b = Buffer.alloc(2);
  b.writeUInt16LE(n & 0xffff);
  return b;
}
function u32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeUInt32LE(n >>> 0);
  return b;
}

export function rawZip(entries: RawEntry[], options: { comment?: string; prefix?: Uint8Array } = {}): Uint8Array {
  const out: Buffer[] = options.prefix ? [Buffer.from(options.prefix)] : [];
  let length = options.prefix?.length ?? 0;
  const push = (...parts: Buffer[]) => {
    for (const part of parts) {
      out.push(part);
      length += part.length;
    }
  };
  const central: Buffer[] = [];
  const offsets: number[] = [];
  const base = options.prefix?.length ?? 0;
  const info: { crc: number; packed: number; size: number; method: number }[] = [];
  entries.forEach((entry, i) => {
    const name = Buffer.from(entry.name, 'utf8');
    const data =
      typeof entry.data === 'string' ? Buffer.from(entry.data) : Buffer.from(entry.data ?? new Uint8Array(0));
    const method = entry.method ?? 8;
    const packed = method === 8 ? zlib.deflateRawSync(data) : data;
    const crc = zlib.crc32(data) >>> 0;
    const flags = (entry.flags ?? 0) | 0x0800;
    let offset: number;
    if (entry.shareDataOf !== undefined) {
      offset = offsets[entry.shareDataOf]!;
      info.push(info[entry.shareDataOf]!);
    } else {
      offset = length - base;
      push(u32(0x04034b50), u16(20), u16(flags), u16(method), u16(0), u16(0x21));
      push(
        u32(crc),
        u32(packed.length),
        u32(entry.declaredSize ?? data.length),
        u16(name.length),
        u16(0),
        name,
        Buffer.from(packed),
      );
      info.push({ crc, packed: packed.length, size: data.length, method });
    }
    offsets.push(offset);
    const meta = info[i]!;
    const madeBy = entry.unixMode !== undefined ? (3 << 8) | 20 : 20;
    central.push(u32(0x02014b50), u16(madeBy), u16(20), u16(flags), u16(meta.method), u16(0), u16(0x21));
    central.push(
      u32(meta.crc),
      u32(meta.packed),
      u32(entry.declaredSize ?? meta.size),
      u16(name.length),
      u16(0),
      u16(0),
    );
    central.push(u16(0), u16(0), u32(((entry.unixMode ?? 0) << 16) >>> 0), u32(offset), name);
  });
  const cdOffset = length - base;
  const directory = Buffer.concat(central);
  push(directory);
  const comment = Buffer.from(options.comment ?? '');
  push(
    u32(0x06054b50),
    u16(0),
    u16(0),
    u16(entries.length),
    u16(entries.length),
    u32(directory.length),
    u32(cdOffset),
    u16(comment.length),
    comment,
  );
  return new Uint8Array(Buffer.concat(out));
}

/** Central-directory field offsets, for patchCentral. */
export const CENTRAL_FIELD = { compressedSize: 20, uncompressedSize: 24, localHeaderOffset: 42 } as const;

/**
 * A copy of `bytes` with one 32-bit field of `name`'s central-directory record overwritten: a damaged archive to order.
 */
export function patchCentral(
  bytes: Uint8Array,
  name: string,
  field: keyof typeof CENTRAL_FIELD,
  value: number,
): Uint8Array {
  const entry = readCentralDirectory(new BufferSource(bytes)).entries.find((e) => e.name === name);
  if (!entry) throw new Error(`no entry ${name}`);
  const out = Buffer.from(bytes);
  out.writeUInt32LE(value >>> 0, entry.centralOffset + CENTRAL_FIELD[field]);
  return new Uint8Array(out);
}
