/**
 * What a compression method and an encryption layer are to zipfs: the shapes the codec registry
 * (codec-registry.ts) holds. A new method (zstd 93, bzip2 12, LZMA 14, Deflate64 9) is one module
 * exporting a Codec, listed in codecs/built-in.ts; an encryption layer (ZipCrypto, WinZip AES) is one
 * module exporting an EntryCipher. Nothing outside src/zip/ asks which method an entry uses.
 * The types live apart from the registry so a codec module can name them without importing it.
 */
import type { EntryLocation } from './types.ts';

/**
 * One compression method, by its APPNOTE number. A decoder signals a fault by throwing
 * InflateError (codec.ts): `overflow` set when the output passes the declared size (the header
 * lies: ZIP_BOMB_DETECTED), unset for damaged data (ZIP_INVALID, its message the reason). Any
 * other error (the sink's, the input's) passes through as it is.
 */
export interface Codec {
  readonly method: number;
  /** As an error names it: "uses compression method 93 (zstd)". */
  readonly name: string;
  /** "Version needed to extract" of an entry written with it (APPNOTE 4.4.3). */
  readonly versionNeeded: number;
  /** True when the data is the entry's bytes as they sit in the zip: a CRC check may read them through any buffer. */
  readonly identity?: boolean;
  /**
   * Why the declared sizes cannot be right for this method, checked before a byte is read (stored: they must be equal).
   */
  sizeFault?(compressedSize: number, declaredSize: number): string | undefined;
  /**
   * The whole of an entry's data, decoded. Output is bounded: past `declaredSize` bytes it stops
   * with an overflow error, so a lying header costs bounded memory. Shorter output is returned as
   * it is (the caller calls it cut off). The result may be a view of `data`.
   */
  decode(data: Uint8Array, declaredSize: number): Uint8Array;
  /**
   * The streaming twin of decode, for entries too large to hold: `input`'s pieces in, output to
   * `onOutput` as it comes, stopping with an overflow error as soon as it passes `declaredSize`.
   */
  decodeStream(input: Iterable<Uint8Array>, declaredSize: number, onOutput: (chunk: Uint8Array) => void): Promise<void>;
  /** Present when zipfs can write the method (a changed entry keeps it; otherwise it is written as deflate). */
  readonly encoder?: Encoder;
}

export interface Encoder {
  /** A whole buffer's bytes in this method (may be `data` itself). */
  encode(data: Uint8Array): Uint8Array;
  /**
   * One piece of an entry encoded piece by piece: the outputs, in order, concatenate into the
   * entry's data; `final` closes it (an empty piece after the last). Returns a new buffer: the
   * caller reuses its read buffer. For a method whose pieces are independent (stored, deflate's flushed pieces).
   */
  encodePiece?(data: Uint8Array, final: boolean): Uint8Array;
  /**
   * In place of encodePiece, for a method whose pieces share state (zstd: one frame across them): a piece encoder
   * for one entry, as encodePiece is called.
   */
  startPieces?(): (data: Uint8Array, final: boolean) => Uint8Array;
}

/** Bytes in, bytes out, piece by piece; end() runs the layer's own check after the last piece. */
export interface PieceTransform {
  piece(chunk: Uint8Array): Uint8Array;
  /** Throws (an Error whose message is the reason) when the check fails: a wrong password, a MAC that differs. */
  end(): void;
}

/**
 * An encryption layer, applied under the codec: an entry's data is decrypted first and the
 * result decoded by the codec of the method under the encryption. ZipCrypto and WinZip AES
 * (ciphers/) are in effect while a password is (ciphers/password.ts: an environment variable, a
 * file, a prompt, an MCP elicitation, never a tool argument: DESIGN.md, Encryption); without one,
 * an entry they would unwrap stays in the zip (encryption.ts).
 */
export interface EntryCipher {
  readonly name: string;
  /** Whether this layer unwraps `entry` (its flags, and its method: WinZip AES gives 99). */
  wraps(entry: EntryLocation): boolean;
  /** The method of the data under the encryption (ZipCrypto: the entry's; WinZip AES keeps it in its extra field). */
  innerMethod(entry: EntryLocation): number;
  /**
   * The layer's own bytes in the entry's data: a header before (ZipCrypto 12, AES salt and verifier), a trailer after
   * (AES's MAC).
   */
  overhead(entry: EntryLocation): { head: number; tail: number };
  /** True when the entry records no CRC-32 to check (WinZip AE-2: its MAC stands for it). */
  skipsCrc?(entry: EntryLocation): boolean;
  /** A decryptor for one entry's data, given the layer's header and trailer bytes. */
  decryptor(entry: EntryLocation, head: Uint8Array, tail: Uint8Array): PieceTransform;
  /** Present when zipfs can write entries under this layer. */
  encryptor?(entry: EntryLocation): { head: Uint8Array; transform: PieceTransform; tail(): Uint8Array };
}

/**
 * How a new entry's data is written: a method (its codec must have an encoder), or 'auto': deflate unless it does not
 * help.
 */
export type EncodeChoice = number | 'auto';
