/**
 * Method 14, LZMA (APPNOTE 5.8): the entry's data is a 2-byte LZMA SDK version, a 2-byte size of
 * the properties (5), the properties (lc/lp/pb byte, 4-byte dictionary size), then raw LZMA. The
 * stream ends with an end marker when general-purpose bit 1 is set, else at the declared size;
 * the codec is not told the flags, so it accepts both: it decodes to the declared size, and if a
 * match or input is left, the next symbol must be the end marker (anything else: more data than
 * declared).
 * zipfs's own decoder (lzma-decoder.ts): Bun has no LZMA, and a library would be the only
 * dependency of the zip layer for a method few archives use.
 */
import type { Codec } from '../codec-types.ts';
import { overflowError } from '../codec.ts';
import { damaged } from './lzma-input.ts';
import { LzmaDecoder, lzmaProperties } from './lzma-decoder.ts';
import { RangeDecoder } from './range-decoder.ts';
import { MAX_DICTIONARY, Window } from './lzma-window.ts';

const PIECE_BYTES = 4 << 20;
const WHAT = 'LZMA data';

/** Reads the zip LZMA header: the properties and the dictionary size it declares. */
function readHeader(rc: RangeDecoder): { props: { lc: number; lp: number; pb: number }; dictionary: number } {
  rc.byte(); // the LZMA SDK's version, major and minor: any
  rc.byte();
  const propsSize = rc.byte() | (rc.byte() << 8);
  if (propsSize !== 5) throw damaged(`${WHAT} has a ${propsSize}-byte properties field, not 5`);
  const props = lzmaProperties(rc.byte());
  if (!props) throw damaged(`${WHAT} has invalid properties (lc/lp/pb)`);
  const dictionary = (rc.byte() | (rc.byte() << 8) | (rc.byte() << 16)) + rc.byte() * 0x1000000;
  if (dictionary > MAX_DICTIONARY)
    throw damaged(
      `${WHAT} declares a ${Math.round(dictionary / 2 ** 20)} MiB dictionary, more than the ` +
        `${MAX_DICTIONARY / 2 ** 20} MiB zipfs accepts: refused as a likely zip bomb`,
    );
  return { props, dictionary };
}

/** Decodes the stream after the header into the decoder's window, emitting every PIECE_BYTES. */
function decodeBody(decoder: LzmaDecoder, declaredSize: number): void {
  const { rc, window } = decoder;
  rc.init();
  let ended = false;
  while (!ended && window.total < declaredSize) {
    ended = decoder.decode(Math.min(declaredSize, window.total + PIECE_BYTES));
    window.emit();
  }
  if (!ended) {
    rc.normalize();
    if ((decoder.remainLen > 0 || !rc.atEnd()) && !decoder.decode(declaredSize + 1)) throw overflowError(declaredSize);
  }
  rc.normalize();
  if (rc.pos > rc.end) throw rc.cutOff();
  if (rc.code !== 0) throw damaged(`${WHAT} is damaged (its range coder does not end cleanly)`);
  if (!rc.atEnd()) throw damaged(`${WHAT} has bytes after its end`);
}

export const lzmaCodec: Codec = {
  method: 14,
  name: 'lzma',
  versionNeeded: 63,
  decode(data, declaredSize) {
    const rc = new RangeDecoder([data], WHAT);
    const { props } = readHeader(rc);
    const window = Window.whole(declaredSize);
    const decoder = new LzmaDecoder(rc, window);
    decoder.setProperties(props);
    decodeBody(decoder, declaredSize);
    return window.output();
  },
  async decodeStream(input, declaredSize, onOutput) {
    const rc = new RangeDecoder(input, WHAT);
    const { props, dictionary } = readHeader(rc);
    const window = Window.ring(dictionary, declaredSize, (piece) => onOutput(piece.slice()));
    const decoder = new LzmaDecoder(rc, window);
    decoder.setProperties(props);
    decodeBody(decoder, declaredSize);
    window.emit();
  },
};
