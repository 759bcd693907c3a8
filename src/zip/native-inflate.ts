/**
 * Raw inflate through the system's zlib (libz.so.1, bun:ffi), into a buffer of exactly the bound: no
 * node:zlib to load. node:zlib brings node:stream with it, 7-13 ms on the first inflate of a
 * process: a third of an open of a 2 MiB Office document, whose one large part inflates in 5 ms.
 * The system's zlib inflates at about 60% of the runtime's own speed (2.3 MB of XML: 5.5 against
 * 3.5 ms), so codec.ts uses it for the first few MiB a process inflates and node:zlib past them.
 *
 * Linux only, as base/libc.ts: z_stream's layout below is LP64's (x64, arm64); ZIPFS_NATIVE=0, a
 * libz that cannot be loaded, or another platform leave `nativeInflate()` undefined.
 */
import type { Pointer } from 'bun:ffi';
import { readSetting } from '../base/env-setting.ts';
import { NATIVE_SETTING } from '../base/libc.ts';

/** What one bounded inflate gave: the output (at most `bound` bytes), or why it stopped. */
export type NativeResult =
  | { kind: 'done'; output: Uint8Array }
  /** The stream wants more than `bound` bytes of room. */
  | { kind: 'overflow' }
  /** Damaged data, or the input ended before the stream did. */
  | { kind: 'corrupt'; reason: string };

/** undefined: zlib could not start a stream (no memory for its state): inflate another way. */
export type NativeInflate = (data: Uint8Array, bound: number) => NativeResult | undefined;

/** z_stream on LP64: pointers and uLongs 8 bytes, uInts 4 (padded to 8). */
const Z_STREAM = { size: 112, nextIn: 0, availIn: 8, nextOut: 24, availOut: 32, totalOut: 40, msg: 48 } as const;
const Z_FINISH = 4;
const Z_STREAM_END = 1;
const Z_BUF_ERROR = -5;
/** avail_in and avail_out are 32-bit: larger calls go to node:zlib. */
export const NATIVE_MAX_BYTES = 2 ** 31 - 1;

let loaded: NativeInflate | null | undefined;

export function nativeInflate(): NativeInflate | undefined {
  if (loaded === undefined)
    loaded = readSetting(process.env, NATIVE_SETTING) === '1' && process.platform === 'linux' ? load() : null;
  return loaded ?? undefined;
}

function load(): NativeInflate | null {
  try {
    const { dlopen, FFIType, ptr, CString } = require('bun:ffi') as typeof import('bun:ffi');
    const { symbols } = dlopen('libz.so.1', {
      inflateInit2_: { args: [FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
      inflate: { args: [FFIType.ptr, FFIType.i32], returns: FFIType.i32 },
      inflateEnd: { args: [FFIType.ptr], returns: FFIType.i32 },
    });
    // Storage of its own, which the collector never moves (as libc.ts's): the stream, then the version zlib checks
    // the first character of (with the struct's size). Its address is taken once: the closure below keeps it alive.
    const memory = new ArrayBuffer(Z_STREAM.size + 2);
    const stream = new DataView(memory, 0, Z_STREAM.size);
    new Uint8Array(memory).set([0x31, 0], Z_STREAM.size);
    const streamPtr = ptr(stream);
    const versionPtr = (streamPtr + Z_STREAM.size) as Pointer;
    const setPointer = (at: number, pointer: Pointer) => stream.setBigUint64(at, BigInt(pointer), true);
    return (data, bound) => {
      for (let at = 0; at < Z_STREAM.size; at += 4) stream.setUint32(at, 0, true);
      if (symbols.inflateInit2_(streamPtr, -15, versionPtr, Z_STREAM.size) !== 0) return undefined;
      const output = new Uint8Array(new ArrayBuffer(bound));
      try {
        if (data.length > 0) setPointer(Z_STREAM.nextIn, ptr(data));
        stream.setUint32(Z_STREAM.availIn, data.length, true);
        if (bound > 0) setPointer(Z_STREAM.nextOut, ptr(output));
        stream.setUint32(Z_STREAM.availOut, bound, true);
        const status = symbols.inflate(streamPtr, Z_FINISH);
        const produced =
          stream.getUint32(Z_STREAM.totalOut, true) + stream.getUint32(Z_STREAM.totalOut + 4, true) * 2 ** 32;
        if (status === Z_STREAM_END) return { kind: 'done', output: output.subarray(0, produced) };
        // Out of room with input left: the stream goes on past the bound.
        if (status === Z_BUF_ERROR && stream.getUint32(Z_STREAM.availOut, true) === 0) return { kind: 'overflow' };
        if (status === Z_BUF_ERROR) return { kind: 'corrupt', reason: 'unexpected end of file' };
        const message = stream.getBigUint64(Z_STREAM.msg, true);
        return {
          kind: 'corrupt',
          reason: message === 0n ? `zlib error ${status}` : new CString(Number(message) as Pointer).toString(),
        };
      } finally {
        symbols.inflateEnd(streamPtr);
      }
    };
  } catch {
    return null;
  }
}
