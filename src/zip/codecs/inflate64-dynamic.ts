/**
 * A dynamic block's header (RFC 1951 3.2.7): the code lengths' own code, then the literal/length
 * and distance code lengths, run-length coded, built into tables (inflate64-tables.ts). The tables
 * are reused: an inflater takes a set when its first dynamic block comes and gives it back when
 * its stream ends, so many small entries allocate none.
 */
import type { BitInput } from './inflate64-input.ts';
import {
  BITS_MASK,
  buildTable,
  CODE_LENGTH_BITS,
  CODE_LENGTH_TABLE_SIZE,
  DISTANCE_PRIMARY_BITS,
  DISTANCE_TABLE_SIZE,
  INVALID,
  KIND_MASK,
  LITERAL_PRIMARY_BITS,
  LITERAL_TABLE_SIZE,
  type TableSpec,
} from './inflate64-tables.ts';

export interface DynamicTables {
  literals: Int32Array;
  distances: Int32Array;
  codeLengths: Int32Array;
  lengths: Uint8Array;
}

const CODE_LENGTH_ORDER = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15];
/** Sets given back (a few: as many as streams decode at once, as a rule one or two). */
const spare: DynamicTables[] = [];

export function takeTables(): DynamicTables {
  return (
    spare.pop() ?? {
      literals: new Int32Array(LITERAL_TABLE_SIZE),
      distances: new Int32Array(DISTANCE_TABLE_SIZE),
      codeLengths: new Int32Array(CODE_LENGTH_TABLE_SIZE),
      lengths: new Uint8Array(320),
    }
  );
}

/** Gives a set back once its inflater is done with it (a failed one keeps it: the garbage collector takes it). */
export function giveBackTables(tables: DynamicTables): void {
  if (spare.length < 4) spare.push(tables);
}

function build(input: BitInput, table: Int32Array, spec: TableSpec): void {
  const fault = buildTable(table, spec);
  if (fault) input.fail(fault);
}

/** Reads a dynamic block's header from `input` into `tables`. */
export function readDynamicTables(input: BitInput, tables: DynamicTables): void {
  const literalCount = input.bits(5) + 257;
  const distanceCount = input.bits(5) + 1;
  const codeCount = input.bits(4) + 4;
  if (literalCount > 286) input.fail('too many literal/length codes');
  const lengths = tables.lengths;
  lengths.fill(0, 0, 19);
  for (let index = 0; index < codeCount; index++) lengths[CODE_LENGTH_ORDER[index]!] = input.bits(3);
  const table = tables.codeLengths;
  build(input, table, { kind: 'code length', lengths, at: 0, count: 19, primaryBits: CODE_LENGTH_BITS });
  const total = literalCount + distanceCount;
  let index = 0;
  while (index < total) {
    input.need(CODE_LENGTH_BITS);
    const entry = table[input.bitBuf & ((1 << CODE_LENGTH_BITS) - 1)]!;
    if ((entry & KIND_MASK) === INVALID) input.fail('invalid code length code');
    input.drop(entry & BITS_MASK);
    input.checkEnd();
    const symbol = entry >>> 8;
    if (symbol < 16) {
      lengths[index++] = symbol;
      continue;
    }
    if (symbol === 16 && index === 0) input.fail('code length repeat with no length before it');
    const value = symbol === 16 ? lengths[index - 1]! : 0;
    const repeat = symbol === 16 ? 3 + input.bits(2) : symbol === 17 ? 3 + input.bits(3) : 11 + input.bits(7);
    if (index + repeat > total) input.fail('code length repeat past the last code');
    lengths.fill(value, index, index + repeat);
    index += repeat;
  }
  if (lengths[256] === 0) input.fail('no end-of-block code');
  const literals = { kind: 'literal/length', lengths, at: 0, count: literalCount } as const;
  build(input, tables.literals, { ...literals, primaryBits: LITERAL_PRIMARY_BITS });
  const distances = { kind: 'distance', lengths, at: literalCount, count: distanceCount } as const;
  build(input, tables.distances, { ...distances, primaryBits: DISTANCE_PRIMARY_BITS });
}
