/**
 * How a new entry's data is encoded, asked of the codec registry: the method a changed entry is
 * written with, and its bytes, whole or piece by piece. 'auto' (an added file) is deflate unless
 * deflate does not make the data smaller.
 */
import { codecFor } from './codec-registry.ts';
import type { EncodeChoice, Encoder } from './codec-types.ts';
import { METHOD_DEFLATED, METHOD_STORED } from './constants.ts';

/** A streamed 'auto' entry is stored when deflate does not bring its first piece below this share. */
const WORTH_DEFLATING = 0.97;

/** The method a changed entry is written with: its own when zipfs can write it, else deflate. */
export function methodToWrite(method: number): number {
  return codecFor(method)?.encoder ? method : METHOD_DEFLATED;
}

function encoderOf(method: number): Encoder {
  const encoder = codecFor(method)?.encoder;
  if (!encoder) throw new Error(`zipfs cannot write compression method ${method}`);
  return encoder;
}

/** A whole entry's data, encoded as `choice` says; returns the method written and the bytes. */
export function encodeWhole(bytes: Uint8Array, choice: EncodeChoice): { method: number; data: Uint8Array } {
  if (choice !== 'auto') return { method: choice, data: encoderOf(choice).encode(bytes) };
  const data = encoderOf(METHOD_DEFLATED).encode(bytes);
  return data.length >= bytes.length ? { method: METHOD_STORED, data: bytes } : { method: METHOD_DEFLATED, data };
}

/** An entry being encoded piece by piece: its method, known from its first piece, and its encoded pieces. */
export interface PieceEncoding {
  method: number;
  /** The first piece, encoded. */
  first: Uint8Array;
  /** The next piece, encoded (a new buffer: the caller's is reused). */
  piece(chunk: Uint8Array): Uint8Array;
  /** What closes the data after the last piece (may be empty). */
  end(): Uint8Array;
}

/** One entry's piece encoder: the method's own per-entry one, or its stateless encodePiece. */
function piecesOf(method: number): (data: Uint8Array, final: boolean) => Uint8Array {
  const encoder = encoderOf(method);
  const pieces = encoder.startPieces?.() ?? encoder.encodePiece?.bind(encoder);
  if (!pieces) throw new Error(`zipfs cannot write compression method ${method} piece by piece`);
  return pieces;
}

/** Starts encoding an entry as `choice` says, from its first piece: 'auto' decides there. */
export function startPieceEncoding(choice: EncodeChoice, firstPiece: Uint8Array): PieceEncoding {
  let method = choice === 'auto' ? METHOD_DEFLATED : choice;
  let encode = piecesOf(method);
  let first = encode(firstPiece, false);
  if (choice === 'auto' && first.length >= firstPiece.length * WORTH_DEFLATING) {
    method = METHOD_STORED;
    encode = piecesOf(method);
    first = encode(firstPiece, false);
  }
  return {
    method,
    first,
    piece: (chunk) => encode(chunk, false),
    end: () => encode(new Uint8Array(0), true),
  };
}
