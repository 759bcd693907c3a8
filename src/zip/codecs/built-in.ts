/**
 * The methods zipfs reads and writes, registered at start-up in every thread (the extraction and
 * grep workers load the registry too). A new method is one module beside these, listed here.
 * Stored and deflate are loaded with the registry; the others, which few archives use, when an
 * entry of theirs is first decoded or encoded: their modules cost every command's start-up ~1 ms.
 */
import type { Codec } from '../codec-types.ts';
import { deflateCodec } from './deflate.ts';
import { storedCodec } from './stored.ts';

/** What the registry knows of a codec before its module is loaded (tests/zip/codec-registry.test.ts holds it to it). */
type Facts = Pick<Codec, 'method' | 'name' | 'versionNeeded'>;

/** A codec whose module `load` requires when one of its parts is first asked for. */
function onDemand(facts: Facts, load: () => Codec): Codec {
  let loaded: Codec | undefined;
  const codec = () => (loaded ??= load());
  return {
    ...facts,
    get identity() {
      return codec().identity;
    },
    sizeFault: (compressedSize, declaredSize) => codec().sizeFault?.(compressedSize, declaredSize),
    decode: (data, declaredSize) => codec().decode(data, declaredSize),
    decodeStream: (input, declaredSize, onOutput) => codec().decodeStream(input, declaredSize, onOutput),
    get encoder() {
      return codec().encoder;
    },
  };
}

// require(), not import: the bundle evaluates a required module when it is called (as table/command-loader.ts).
export const BUILT_IN_CODECS: readonly Codec[] = [
  storedCodec,
  deflateCodec,
  onDemand({ method: 9, name: 'deflate64', versionNeeded: 21 }, () => require('./deflate64.ts').deflate64Codec),
  onDemand({ method: 93, name: 'zstd', versionNeeded: 63 }, () => require('./zstd.ts').zstdCodec),
  onDemand({ method: 12, name: 'bzip2', versionNeeded: 46 }, () => require('./bzip2.ts').bzip2Codec),
  onDemand({ method: 14, name: 'lzma', versionNeeded: 63 }, () => require('./lzma.ts').lzmaCodec),
  onDemand({ method: 95, name: 'xz', versionNeeded: 63 }, () => require('./xz.ts').xzCodec),
];
