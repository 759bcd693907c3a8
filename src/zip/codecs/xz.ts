/**
 * Method 95, xz (APPNOTE 4.4.5): the entry's data is a whole .xz stream (xz-stream.ts), decoded
 * with zipfs's own LZMA2 decoder: Bun has no xz, and see lzma.ts for why no library.
 */
import type { Codec } from '../codec-types.ts';
import { RangeDecoder } from './range-decoder.ts';
import { Window } from './lzma-window.ts';
import type { BlockCheck } from './xz-check.ts';
import { XzReader } from './xz-stream.ts';

const WHAT = 'xz data';

export const xzCodec: Codec = {
  method: 95,
  name: 'xz',
  versionNeeded: 63,
  decode(data, declaredSize) {
    let check: BlockCheck | undefined;
    const window = Window.whole(declaredSize, (piece) => check!.update(piece));
    const output = {
      window: () => window,
      checkWith: (next: BlockCheck) => {
        check = next;
      },
    };
    new XzReader(new RangeDecoder([data], WHAT), output, declaredSize).read();
    return window.output();
  },
  async decodeStream(input, declaredSize, onOutput) {
    let check: BlockCheck | undefined;
    let window: Window | undefined;
    const output = {
      window(dictionary: number) {
        if (window && (window.size >= dictionary || window.size > declaredSize)) return window;
        // A larger dictionary than the ring's: at a block's start, which resets the dictionary anyway.
        const total = window?.total ?? 0;
        window = Window.ring(dictionary, declaredSize, (piece) => {
          check!.update(piece);
          onOutput(piece.slice());
        });
        window.total = window.dictStart = total;
        return window;
      },
      checkWith: (next: BlockCheck) => {
        check = next;
      },
    };
    new XzReader(new RangeDecoder(input, WHAT), output, declaredSize).read();
  },
};
