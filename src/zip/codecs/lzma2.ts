/**
 * LZMA2 (as xz and 7-Zip write it): chunks of LZMA data or stored bytes, each with its sizes,
 * which may reset the dictionary, the state or the properties. The chunks end at a zero byte.
 * Each LZMA chunk's range coder must end exactly at its packed size; a chunk that would pass the
 * declared size of the entry is an overflow before a byte of it is decoded.
 */
import { InflateError, overflowError } from '../codec.ts';
import { damaged } from './lzma-input.ts';
import { LzmaDecoder, lzmaProperties } from './lzma-decoder.ts';
import type { RangeDecoder } from './range-decoder.ts';
import type { Window } from './lzma-window.ts';

const PIECE_BYTES = 4 << 20;

/** The dictionary size an LZMA2 properties byte names (0-40), or undefined when out of range. */
export function lzma2Dictionary(byte: number): number | undefined {
  if (byte > 40) return undefined;
  if (byte === 40) return 0xffffffff;
  return (2 | (byte & 1)) * 2 ** ((byte >>> 1) + 11);
}

export class Lzma2Decoder {
  private readonly lzma: LzmaDecoder;

  constructor(
    private readonly rc: RangeDecoder,
    private readonly window: Window,
    /** More output than this in all is an overflow. */
    private readonly limit: number,
  ) {
    this.lzma = new LzmaDecoder(rc, window);
  }

  /** Decodes one LZMA2 stream (an xz block's data), through its end byte. */
  decode(): void {
    const { rc, window } = this;
    let needDictionary = true;
    let needProperties = true;
    for (;;) {
      const control = rc.byte();
      if (control === 0) return;
      if (control >= 0xe0 || control === 1) {
        needProperties = true;
        needDictionary = false;
        window.resetDictionary();
      } else if (needDictionary) throw this.fault('its first chunk does not reset the dictionary');
      if (control < 0x80) {
        if (control > 2) throw this.fault(`invalid chunk type 0x${control.toString(16)}`);
        const size = ((rc.byte() << 8) | rc.byte()) + 1;
        this.room(size);
        rc.span(size, (piece) => window.write(piece));
        continue;
      }
      const unpacked = (control & 0x1f) * 0x10000 + ((rc.byte() << 8) | rc.byte()) + 1;
      const packed = ((rc.byte() << 8) | rc.byte()) + 1;
      if (control >= 0xc0) {
        const props = lzmaProperties(rc.byte());
        if (!props || props.lc + props.lp > 4) throw this.fault('invalid properties (lc/lp/pb)');
        needProperties = false;
        this.lzma.setProperties(props);
      } else if (needProperties) throw this.fault('a chunk does not set the properties it needs');
      else if (control >= 0xa0) this.lzma.resetState();
      this.room(unpacked);
      this.chunk(unpacked, packed);
    }
  }

  private chunk(unpacked: number, packed: number): void {
    const { rc, window, lzma } = this;
    const start = rc.offset;
    rc.init();
    const target = window.total + unpacked;
    while (window.total < target) {
      if (lzma.decode(Math.min(target, window.total + PIECE_BYTES))) throw this.fault('an end marker inside a chunk');
      if (window.total < target) window.emit();
    }
    rc.normalize();
    if (rc.pos > rc.end) throw rc.cutOff();
    if (rc.offset - start !== packed || rc.code !== 0 || lzma.remainLen !== 0)
      throw this.fault('a chunk does not end where its header says');
  }

  /** Refuses a chunk that would take the output past the limit: the declared size lies. */
  private room(size: number): void {
    if (this.window.total + size > this.limit) throw overflowError(this.limit);
  }

  private fault(reason: string): InflateError {
    return damaged(`LZMA2 data in the xz stream is damaged (${reason})`);
  }
}
