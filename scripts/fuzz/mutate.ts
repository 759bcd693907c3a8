/**
 * Mutations of zip archives, aimed where readers trust what they read: record
 * fields set to 0, 0xFFFF, 0xFFFFFFFF or off by one, local-header offsets
 * re-pointed at other entries, the central directory or past the end, plus
 * plain byte flips, insertions and truncations. Records are found by their
 * signatures, so damaged seeds can be mutated too.
 */
import type { Random } from './random.ts';

type Field = readonly [offset: number, width: 2 | 4];

const SIG = { local: 0x04034b50, central: 0x02014b50, end: 0x06054b50 } as const;
const FIELDS: Record<keyof typeof SIG, readonly Field[]> = {
  // flags, method, crc, sizes, name and extra lengths
  local: [
    [6, 2],
    [8, 2],
    [14, 4],
    [18, 4],
    [22, 4],
    [26, 2],
    [28, 2],
  ],
  // flags, method, crc, sizes, name/extra/comment lengths, external attributes, local-header offset
  central: [
    [8, 2],
    [10, 2],
    [16, 4],
    [20, 4],
    [24, 4],
    [28, 2],
    [30, 2],
    [32, 2],
    [38, 4],
    [42, 4],
  ],
  // entry counts, directory size and offset, comment length
  end: [
    [8, 2],
    [10, 2],
    [12, 4],
    [16, 4],
    [20, 2],
  ],
};

/** Offsets of every record with this signature (fixed part inside the file). */
function records(bytes: Uint8Array, kind: keyof typeof SIG): number[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found: number[] = [];
  for (let at = 0; at + 4 <= bytes.length; at++) {
    if (bytes[at] === 0x50 && view.getUint32(at, true) === SIG[kind]) found.push(at);
  }
  return found;
}

function setField(bytes: Uint8Array, at: number, [offset, width]: Field, value: number): void {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (at + offset + width > bytes.length) return;
  if (width === 2) view.setUint16(at + offset, value & 0xffff, true);
  else view.setUint32(at + offset, value >>> 0, true);
}

function getField(bytes: Uint8Array, at: number, [offset, width]: Field): number {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (at + offset + width > bytes.length) return 0;
  return width === 2 ? view.getUint16(at + offset, true) : view.getUint32(at + offset, true);
}

export type MutationKind = 'field' | 'repoint' | 'flip' | 'insert' | 'truncate';

export interface Mutant {
  bytes: Uint8Array;
  /** What was done, to reproduce and report it. */
  description: string;
}

function fieldValue(random: Random, current: number, width: 2 | 4): number {
  const max = width === 2 ? 0xffff : 0xffffffff;
  return random.pick([0, 0xffff, max, current + 1, current - 1, current * 2, random.below(max + 1)]);
}

export function mutate(seed: Uint8Array, random: Random): Mutant {
  const bytes = seed.slice();
  const roll = random.next();
  const kind: MutationKind =
    roll < 0.35 ? 'field' : roll < 0.55 ? 'repoint' : roll < 0.8 ? 'flip' : roll < 0.9 ? 'insert' : 'truncate';
  if (kind === 'field') {
    const which = random.pick(['central', 'central', 'local', 'end'] as const);
    const found = records(bytes, which);
    if (found.length > 0) {
      const at = random.pick(found);
      const field = random.pick(FIELDS[which]);
      const value = fieldValue(random, getField(bytes, at, field), field[1]);
      setField(bytes, at, field, value);
      return { bytes, description: `${which} record at ${at}: field +${field[0]} = ${value >>> 0}` };
    }
  }
  if (kind === 'repoint' || kind === 'field') {
    const centrals = records(bytes, 'central');
    const locals = records(bytes, 'local');
    if (centrals.length > 0) {
      const at = random.pick(centrals);
      const target = random.pick([
        ...(locals.length > 0 ? [random.pick(locals)] : []),
        centrals[0]!,
        bytes.length,
        bytes.length + 1000,
        random.below(bytes.length),
        getField(bytes, at, [42, 4]) + 1,
      ]);
      setField(bytes, at, [42, 4], target);
      return { bytes, description: `central record at ${at}: local-header offset -> ${target}` };
    }
  }
  if (kind === 'insert') {
    const at = random.below(bytes.length + 1);
    const extra = Uint8Array.from({ length: 1 + random.below(64) }, () => random.below(256));
    const out = new Uint8Array(bytes.length + extra.length);
    out.set(bytes.subarray(0, at));
    out.set(extra, at);
    out.set(bytes.subarray(at), at + extra.length);
    return { bytes: out, description: `${extra.length} bytes inserted at ${at}` };
  }
  if (kind === 'truncate') {
    const length = random.below(bytes.length);
    return { bytes: bytes.subarray(0, length), description: `truncated to ${length} bytes` };
  }
  const flips = 1 + random.below(4);
  const spots: number[] = [];
  for (let i = 0; i < flips && bytes.length > 0; i++) {
    const at = random.below(bytes.length);
    bytes[at]! ^= 1 + random.below(255);
    spots.push(at);
  }
  return { bytes, description: `bytes flipped at ${spots.join(', ')}` };
}
