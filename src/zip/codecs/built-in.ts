/**
 * The methods zipfs reads and writes, registered at start-up in every thread (the extraction and
 * grep workers load the registry too). A new method is one module beside these, listed here.
 */
import type { Codec } from '../codec-types.ts';
import { deflateCodec } from './deflate.ts';
import { storedCodec } from './stored.ts';
import { zstdCodec } from './zstd.ts';

export const BUILT_IN_CODECS: readonly Codec[] = [storedCodec, deflateCodec, zstdCodec];
