/**
 * Raw inflate of a whole buffer through a system library (bun:ffi), into a buffer of exactly the
 * bound: no node:zlib to load. node:zlib brings node:stream with it, 7-13 ms on the first inflate
 * of a process: a third of an open of a 2 MiB Office document, whose one large part inflates in a
 * few ms. libdeflate (libdeflate.so.0, which libtiff brings) inflates faster than node:zlib (2.3 MB
 * of XML: 2.5-3 against 3.5 ms); where it is missing, the system's zlib (libz.so.1) at about 60% of
 * node:zlib's speed (5.5 ms), which codec.ts uses only for the first few MiB a thread inflates.
 *
 * Linux only, as base/libc.ts: z_stream's layout below is LP64's (x64, arm64); ZIPFS_NATIVE=0,
 * neither library loadable, or another platform leave `nativeInflate()` undefined.
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

export interface NativeInflate {
  /** undefined: the library could not start (no memory for its state): inflate another way. */
  inflate(data: Uint8Array, bound: number): NativeResult | undefined;
  /** Which library: libdeflate outpaces node:zlib at any size, zlib only saves loading node:zlib. */
  library: 'libdeflate' | 'zlib';
}

/** Lengths zlib takes in 32 bits (avail_in, avail_out): larger inputs go to node:zlib. */
export const NATIVE_MAX_INPUT_BYTES = 2 ** 31 - 1;

type Ffi = typeof import('bun:ffi');

let loaded: NativeInflate | null | undefined;

export function nativeInflate(): NativeInflate | undefined {
  if (loaded === undefined)
    loaded = readSetting(process.env, NATIVE_SETTING) === '1' && process.platform === 'linux' ? load() : null;
  return loaded ?? undefined;
}

function load(): NativeInflate | null {
  return nativeLibrary('libdeflate') ?? nativeLibrary('zlib');
}

/** That library loaded anew (the tests take each in turn), or null where it cannot be. */
export function nativeLibrary(library: NativeInflate['library']): NativeInflate | null {
  const ffi = require('bun:ffi') as Ffi;
  return library === 'libdeflate' ? libdeflate(ffi) : zlib(ffi);
}

/** Room for the output, not zero-filled first: the library writes what is returned, and the rest is cut off. */
function unfilled(bound: number): Uint8Array {
  const buffer = Buffer.allocUnsafe(bound);
  return new Uint8Array(buffer.buffer, buffer.byteOffset, bound);
}

const LIBDEFLATE = { success: 0, insufficientSpace: 3 } as const;

function libdeflate({ dlopen, FFIType, ptr }: Ffi): NativeInflate | null {
  try {
    const { symbols } = dlopen('libdeflate.so.0', {
      libdeflate_alloc_decompressor: { args: [], returns: FFIType.ptr },
      libdeflate_deflate_decompress: {
        args: [FFIType.ptr, FFIType.ptr, FFIType.u64, FFIType.ptr, FFIType.u64, FFIType.ptr],
        returns: FFIType.i32,
      },
    });
    // One decompressor for the thread, kept to its end (it holds no stream state between calls).
    const decompressor = symbols.libdeflate_alloc_decompressor();
    if (decompressor === null) return null;
    // Storage of its own, which the collector never moves (as libc.ts's): its address is taken once.
    const actual = new BigUint64Array(new ArrayBuffer(8));
    const actualPtr = ptr(actual);
    return {
      library: 'libdeflate',
      inflate(data, bound) {
        const output = unfilled(bound);
        const status = symbols.libdeflate_deflate_decompress(
          decompressor,
          data.length > 0 ? ptr(data) : null,
          data.length,
          bound > 0 ? ptr(output) : null,
          bound,
          actualPtr,
        );
        if (status === LIBDEFLATE.success) return { kind: 'done', output: output.subarray(0, Number(actual[0])) };
        if (status === LIBDEFLATE.insufficientSpace) return { kind: 'overflow' };
        // libdeflate tells damaged data from a stream cut off by nothing but "bad data".
        return { kind: 'corrupt', reason: 'invalid or truncated data' };
      },
    };
  } catch {
    return null;
  }
}

/** z_stream on LP64: pointers and uLongs 8 bytes, uInts 4 (padded to 8). */
const Z_STREAM = { size: 112, nextIn: 0, availIn: 8, nextOut: 24, availOut: 32, totalOut: 40, msg: 48 } as const;
const Z_FINISH = 4;
const Z_STREAM_END = 1;
const Z_BUF_ERROR = -5;

function zlib({ dlopen, FFIType, ptr, CString }: Ffi): NativeInflate | null {
  try {
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
    return {
      library: 'zlib',
      inflate(data, bound) {
        for (let at = 0; at < Z_STREAM.size; at += 4) stream.setUint32(at, 0, true);
        if (symbols.inflateInit2_(streamPtr, -15, versionPtr, Z_STREAM.size) !== 0) return undefined;
        const output = unfilled(bound);
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
      },
    };
  } catch {
    return null;
  }
}
