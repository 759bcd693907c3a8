/**
 * The methods zipfs reads and writes, registered at start-up in every thread (the extraction and
 * grep workers load the registry too). A new method is one module beside these, listed here.
 */
import type { Codec } from '../codec-types.ts';
import { deflate64Codec } from './deflate64.ts';
import { deflateCodec } from './deflate.ts';
import { storedCodec } from './stored.ts';

export const BUILT_IN_CODECS: readonly Codec[] = [storedCodec, deflateCodec, deflate64Codec];
