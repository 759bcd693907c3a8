/**
 * A bzip2 block's bytes out: the inverse BWT (tt links each byte to the next, as the reference
 * decoder's "fast" path does), the undoing of the initial run-length coding (four equal bytes,
 * then a count of more), and the block's CRC, computed on the bytes as they are written. Output
 * goes to an OutputSink, which bounds it by the entry's declared size: one buffer grown up to
 * that size (decode), or fresh pieces handed on (decodeStream).
 */
import { InflateError, overflowError } from '../codec.ts';
import { damaged } from './bzip2-bits.ts';

/** Where decoded bytes go: the hot loop writes buf[pos++] and calls full() when pos reaches buf.length. */
export interface OutputSink {
  buf: Uint8Array;
  pos: number;
  /** Makes room for at least one more byte (a new buf, pos set), or throws the overflow error. */
  full(): void;
  /** Called after each block: a streaming sink hands on what it holds. */
  endBlock(): void;
}

let crcTable: Int32Array | undefined;

/**
 * bzip2's CRC-32: the IEEE polynomial, most significant bit first (not the zip's reflected one). Made at the first
 * bzip2 block, not at load: every process loads the codec registry, and this loop run cold cost ~3 ms of start-up.
 */
function bzip2CrcTable(): Int32Array {
  if (crcTable) return crcTable;
  const table = new Int32Array(256);
  for (let i = 0; i < 256; i++) {
    let c = i << 24;
    for (let k = 0; k < 8; k++) c = c & 0x80000000 ? (c << 1) ^ 0x04c11db7 : c << 1;
    table[i] = c;
  }
  crcTable = table;
  return table;
}

/** A block as bzip2-block.ts leaves it, and its header's fields. */
export interface DecodedBlock {
  tt: Uint32Array;
  size: number;
  /** How often each byte occurs. */
  counts: Int32Array;
  /** The BWT's original pointer. */
  origin: number;
  /** The CRC the block header gives. */
  crc: number;
  /** "stream 1, block 2", as an error names it. */
  where: string;
}

/**
 * Writes the block held in tt[0 .. size) (bytes in the low 8 bits) to `sink` and checks its CRC;
 * returns the CRC. Past the declared size the block is still walked to its end, writing nothing,
 * so that damaged data (a flipped bit that makes a block longer) is called damaged, not a bomb.
 */
export function writeBlock(block: DecodedBlock, sink: OutputSink): number {
  const { tt, size, counts, origin } = block;
  if (origin >= size) throw damaged(`a block's BWT origin ${origin} is past its ${size} bytes`);
  // Link: the i-th occurrence of byte b, in order, sits at the start of b's bucket plus i.
  const starts = new Int32Array(256);
  for (let b = 0, sum = 0; b < 256; b++) {
    starts[b] = sum;
    sum += counts[b]!;
  }
  for (let i = 0; i < size; i++) {
    const b = tt[i]! & 0xff;
    tt[starts[b]!++]! |= i << 8;
  }
  let buf = sink.buf;
  let pos = sink.pos;
  let overflow: InflateError | undefined;
  let crc = -1;
  const CRC_TABLE = bzip2CrcTable();
  let at = tt[origin]! >>> 8;
  let last = -1;
  let run = 0;
  for (let i = 0; i < size; i++) {
    at = tt[at]!;
    const byte = at & 0xff;
    at >>>= 8;
    if (run !== 4) {
      if (byte === last) run++;
      else {
        last = byte;
        run = 1;
      }
      if (pos === buf.length) {
        sink.pos = pos;
        if (overflow) sink.pos = 0;
        else overflow = makeRoom(sink);
        buf = sink.buf;
        pos = sink.pos;
      }
      buf[pos++] = byte;
      crc = (crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ byte) & 0xff]!;
      continue;
    }
    // The byte after four equal ones counts more of them.
    for (let repeat = byte; repeat > 0; repeat--) {
      if (pos === buf.length) {
        sink.pos = pos;
        if (overflow) sink.pos = 0;
        else overflow = makeRoom(sink);
        buf = sink.buf;
        pos = sink.pos;
      }
      buf[pos++] = last;
      crc = (crc << 8) ^ CRC_TABLE[((crc >>> 24) ^ last) & 0xff]!;
    }
    run = 0;
    last = -1;
  }
  sink.pos = pos;
  crc = ~crc >>> 0;
  if (crc !== block.crc) throw damaged(`${block.where}'s CRC is ${hex(crc)}, the block says ${hex(block.crc)}`);
  if (overflow) throw overflow;
  sink.endBlock();
  return crc;
}

/** sink.full(), or, when that overflows, the overflow error and a scratch buffer to walk the rest of the block into. */
function makeRoom(sink: OutputSink): InflateError | undefined {
  try {
    sink.full();
    return undefined;
  } catch (error) {
    if (!(error instanceof InflateError && error.overflow)) throw error;
    sink.buf = new Uint8Array(1 << 16);
    sink.pos = 0;
    return error;
  }
}

export function hex(n: number): string {
  return (n >>> 0).toString(16).padStart(8, '0');
}

/** One buffer, grown (doubling) up to the declared size: for decode of a whole entry. */
export function growingSink(declaredSize: number, firstSize: number): OutputSink {
  const sink: OutputSink = {
    buf: new Uint8Array(Math.min(declaredSize, firstSize)),
    pos: 0,
    full() {
      if (sink.buf.length >= declaredSize) throw overflowError(declaredSize, 'decodes');
      const grown = new Uint8Array(Math.min(declaredSize, Math.max(sink.buf.length * 2, 1 << 16)));
      grown.set(sink.buf);
      sink.buf = grown;
    },
    endBlock() {},
  };
  return sink;
}

const PIECE_BYTES = 1 << 20;

/**
 * Fresh pieces of up to 1 MiB handed to `onOutput` when full and after each block. A piece is
 * never larger than what the declared size has left plus one byte, so the overflow is found
 * before more than one byte too many is decoded.
 */
export function streamingSink(declaredSize: number, onOutput: (chunk: Uint8Array) => void): OutputSink {
  let handed = 0;
  const fresh = () => new Uint8Array(Math.min(PIECE_BYTES, declaredSize - handed + 1));
  const handOn = () => {
    if (sink.pos === 0) return;
    if (handed + sink.pos > declaredSize) throw overflowError(declaredSize, 'decodes');
    const piece = sink.pos === sink.buf.length ? sink.buf : sink.buf.subarray(0, sink.pos);
    handed += sink.pos;
    onOutput(piece);
    sink.buf = fresh();
    sink.pos = 0;
  };
  const sink: OutputSink = {
    buf: fresh(),
    pos: 0,
    full: handOn,
    endBlock: handOn,
  };
  return sink;
}
