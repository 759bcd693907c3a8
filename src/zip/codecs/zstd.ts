/**
 * Method 93, zstd (APPNOTE 4.4.5; written by the Rust `zip` crate, inspect-ai's `.eval` logs, Python 3.14), through
 * the runtime's own libzstd in node:zlib: no dependency. node:zlib's one-shot decompress takes an output cap
 * (maxOutputLength), which Bun.zstdDecompressSync does not: a few bytes of zstd can claim gigabytes, so a whole
 * entry is decoded with the cap one byte past its declared size, and a large one streams through a counter.
 * A changed zstd entry is written back as zstd: one frame, whole or piece by piece (pieces flushed, not framed
 * apart, so a reader that stops at the first frame's end, as Python's zipfile does, reads all of it).
 */
import type { Codec, Encoder } from '../codec-types.ts';
import { InflateError, decodeBounded, decodeThrough, zlib } from '../codec.ts';

/** Level 3, libzstd's default and the Rust crate's: about deflate's ratio at several times its speed. */
const LEVEL = 3;
/** A large entry's output pieces: measured on a 30 MB entry, 4 MiB decoded about 10-25% faster than 1 MiB. */
const STREAM_CHUNK_BYTES = 4 << 20;
/** Where a piece's compressed output goes before it is copied out (a 4 MiB piece of text: about 1 MiB). */
const SCRATCH_BYTES = 1 << 20;

/** Damaged data, in words: libzstd's own reason; a window past libzstd's default cap (the zstd CLI's too) is named. */
function damaged(error: unknown): InflateError {
  const { code, message } = error as NodeJS.ErrnoException;
  if (code === 'ZSTD_error_frameParameter_windowTooLarge')
    return new InflateError(
      'is zstd with a window over 128 MiB (a frame written with --long), more than zipfs decodes: recompress it ' +
        'without --long',
      false,
    );
  return new InflateError(`corrupt zstd data (${message})`, false);
}

function decode(data: Uint8Array, declaredSize: number): Uint8Array {
  return decodeBounded(declaredSize, (bound) => zlib().zstdDecompressSync(data, bound), damaged, 'decompresses');
}

async function decodeStream(
  input: Iterable<Uint8Array>,
  declaredSize: number,
  onOutput: (chunk: Uint8Array) => void,
): Promise<void> {
  const decoder = zlib().createZstdDecompress({ chunkSize: STREAM_CHUNK_BYTES });
  await decodeThrough(decoder, {
    input,
    expectedSize: declaredSize,
    onOutput,
    damaged,
    verb: 'decompresses',
  });
}

/** The parts of node:zlib's stream object its own synchronous calls use (lib/zlib.js, processChunkSync). */
interface Engine {
  _handle: {
    writeSync(
      flush: number,
      input: Uint8Array,
      inOff: number,
      inLen: number,
      out: Uint8Array,
      outOff: number,
      outLen: number,
    ): void;
  };
  _writeState: Uint32Array;
  close(): void;
}

/**
 * One zstd frame compressed piece by piece, synchronously: node:zlib's sync call closes its stream after one piece,
 * so the pieces go to the stream's native handle as that call does, with ZSTD_e_flush (each piece's output whole,
 * the frame left open) and ZSTD_e_end for the last.
 */
function pieceCompressor(): (data: Uint8Array, final: boolean) => Uint8Array {
  const module = zlib();
  const stream = module.createZstdCompress({ params: { [module.constants.ZSTD_c_compressionLevel]: LEVEL } });
  const engine = stream as unknown as Engine;
  let failure: Error | undefined;
  stream.on('error', (error) => {
    failure = error;
  });
  // One scratch buffer per entry; what each piece gives is copied out of it (the writer may keep a small piece).
  const scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  return (data, final) => {
    const flush = final ? module.constants.ZSTD_e_end : module.constants.ZSTD_e_flush;
    const out: Buffer[] = [];
    let inOff = 0;
    let inLeft = data.byteLength;
    for (;;) {
      engine._handle.writeSync(flush, data, inOff, inLeft, scratch, 0, scratch.length);
      if (failure) throw failure;
      const [outLeft, inLeftAfter] = engine._writeState as unknown as [number, number];
      if (scratch.length > outLeft) out.push(Buffer.from(scratch.subarray(0, scratch.length - outLeft)));
      inOff += inLeft - inLeftAfter;
      inLeft = inLeftAfter;
      if (outLeft !== 0) break; // room was left: the piece is consumed and flushed
    }
    if (final) engine.close();
    return out.length === 1 ? out[0]! : Buffer.concat(out);
  };
}

const encoder: Encoder = {
  encode: (data) => zlib().zstdCompressSync(data, { params: { [zlib().constants.ZSTD_c_compressionLevel]: LEVEL } }),
  startPieces: pieceCompressor,
};

export const zstdCodec: Codec = {
  method: 93,
  name: 'zstd',
  // APPNOTE 4.4.3.2 lists no version for zstd; 6.3 is where methods 93-95 were added, as Python 3.14 writes it.
  versionNeeded: 63,
  decode,
  decodeStream,
  encoder,
};
