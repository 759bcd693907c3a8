/**
 * Method 8, deflate, through the runtime's own zlib and libdeflate (codec.ts says which path
 * uses which, and why: measured against fflate, DESIGN.md, Performance).
 */
import type { Codec } from '../codec-types.ts';
import { deflateRaw, deflateRawPiece, inflateRaw, inflateRawStream } from '../codec.ts';

export const deflateCodec: Codec = {
  method: 8,
  name: 'deflate',
  versionNeeded: 20,
  decode: inflateRaw,
  decodeStream: inflateRawStream,
  encoder: {
    encode: (data) => deflateRaw(data),
    encodePiece: (data, final) => deflateRawPiece(data, final),
  },
};
