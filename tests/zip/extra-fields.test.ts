import { describe, expect, it } from 'bun:test';
import { extendedTimestamp, extendedTimestampField, parseExtraFields } from '../../src/zip/extra-fields.ts';
import { refreshExtraFields, serializeExtraFields } from '../../src/zip/records.ts';

/** An extended-timestamp field with the modification time as these 32 bits. */
function ut(bits: number) {
  const data = new Uint8Array(5);
  data[0] = 1;
  new DataView(data.buffer).setUint32(1, bits >>> 0, true);
  return [{ id: 0x5455, data }];
}

const DOS_1980 = 0x0021_0000; // 1980-01-01 00:00: where writers clamp earlier times
const DOS_2020 = ((40 << 9) | (1 << 5) | 2) * 0x10000;
const DOS_2040 = ((60 << 9) | (6 << 5) | 1) * 0x10000;

describe('the extended timestamp (0x5455)', () => {
  it.each([
    ['a time before 2038', 1_577_934_246, DOS_2020, 1_577_934_246],
    ['a time after 2038 with a DOS time after it', 2_222_222_222, DOS_2040, 2_222_222_222],
    ['a time up to 2106', 0xffff_ffff, DOS_2040, 0xffff_ffff],
    ["Info-ZIP's negative time before 1970, DOS at its 1980 minimum", -315_619_200, DOS_1980, -315_619_200],
    ['a top-bit time whose DOS time says neither (the DOS time decides)', 2_222_222_222, DOS_2020, undefined],
  ])('reads %s', (_what, bits, dos, expected) => {
    expect(extendedTimestamp(ut(bits), dos)).toBe(expected);
  });

  it('is written only for 1970 to 2106, where every reader agrees on it', () => {
    expect(extendedTimestampField(2_222_222_222)!.data).toStrictEqual(ut(2_222_222_222)[0]!.data);
    expect(extendedTimestampField(0xffff_ffff)).toBeDefined();
    expect(extendedTimestampField(0x1_0000_0000)).toBeUndefined();
    expect(extendedTimestampField(-1)).toBeUndefined();
  });

  it("refreshes a modified entry's field, unsigned, and drops it for a time it cannot hold", () => {
    const block = serializeExtraFields([...ut(1_577_934_246), { id: 0xcafe, data: new Uint8Array([1, 2]) }]);
    const refreshed = refreshExtraFields(block, 2_222_222_222);
    expect(extendedTimestamp(parseExtraFields(serializeExtraFields(refreshed)), DOS_2040)).toBe(2_222_222_222);
    expect(refreshExtraFields(block, 0x1_0000_0000).map((f) => f.id)).toStrictEqual([0xcafe]);
    expect(refreshExtraFields(block, -86_400).map((f) => f.id)).toStrictEqual([0xcafe]);
  });
});
