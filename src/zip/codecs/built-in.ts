/**
 * The methods zipfs reads and writes, registered at start-up in every thread (the extraction and
 * grep workers load the registry too). A new method is one module beside these, listed here.
 */
import type { Codec } from '../codec-types.ts';
import { bzip2Codec } from './bzip2.ts';
import { deflate64Codec } from './deflate64.ts';
import { deflateCodec } from './deflate.ts';
import { storedCodec } from './stored.ts';
import { lzmaCodec } from './lzma.ts';
import { xzCodec } from './xz.ts';
import { zstdCodec } from './zstd.ts';

export const BUILT_IN_CODECS: readonly Codec[] = [
  storedCodec,
  deflateCodec,
  deflate64Codec,
  zstdCodec,
  bzip2Codec,
  lzmaCodec,
  xzCodec,
];
