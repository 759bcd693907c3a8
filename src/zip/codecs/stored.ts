/** Method 0, stored: the data is the entry's bytes. */
import type { Codec } from '../codec-types.ts';

export const storedCodec: Codec = {
  method: 0,
  name: 'stored',
  versionNeeded: 10,
  identity: true,
  sizeFault: (compressedSize, declaredSize) =>
    compressedSize === declaredSize
      ? undefined
      : `is stored but its sizes differ (${compressedSize} stored, ${declaredSize} declared)`,
  decode: (data) => data,
  async decodeStream(input, _declaredSize, onOutput) {
    // The sizes were checked equal before (sizeFault) and the input is the entry's span: nothing can overflow.
    for (const chunk of input) onOutput(chunk);
  },
  encoder: {
    encode: (data) => data,
    // A copy: the caller reuses its read buffer, and the writer may keep a small piece buffered.
    encodePiece: (data) => Buffer.from(data),
  },
};
