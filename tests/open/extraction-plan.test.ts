import { describe, expect, it } from 'bun:test';
import { ZipfsError, type Refuse } from '../../src/base/errors.ts';
import { loadLimits } from '../../src/rules/limits.ts';
import { planExtraction } from '../../src/open/extraction-plan.ts';
import { BufferSource, readCentralDirectory } from '../../src/zip/index.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';

const limits = loadLimits({});
const plan = (entries: RawEntry[], overrides = {}, refuse?: Refuse) =>
  planExtraction(readCentralDirectory(new BufferSource(rawZip(entries))), { ...limits, ...overrides }, refuse);

function failure(fn: () => unknown): ZipfsError {
  try {
    fn();
  } catch (error) {
    return error as ZipfsError;
  }
  throw new Error('expected a failure');
}

describe('extraction plan', () => {
  it('types entries, adds implied folders and counts', () => {
    const result = plan([
      { name: 'a/b/c.txt', data: 'x' },
      { name: 'a/', data: '' },
      { name: 'link', data: 't', unixMode: 0o120777 },
    ]);
    expect(result.items.map((i) => [i.path, i.type])).toStrictEqual([
      ['a/b/c.txt', 'file'],
      ['a', 'dir'],
      ['link', 'symlink'],
    ]);
    expect(result.directories).toStrictEqual(['a', 'a/b']);
    expect([result.fileCount, result.dirCount, result.totalBytes]).toStrictEqual([2, 2, 2]);
  });

  it.each([
    [[{ name: 'x' }, { name: 'x' }], 'the same file'],
    [[{ name: 'x' }, { name: 'x/' }], 'a file and a folder'],
    [[{ name: 'x' }, { name: './x' }], 'the same file'],
    [[{ name: 'x' }, { name: 'x/y' }], 'needs it to be a folder'],
    [[{ name: 'x/y' }, { name: 'x' }], 'needs it to be a folder'],
  ] as [RawEntry[], string][])('refuses clashing paths %#', (entries, message) => {
    const error = failure(() => plan(entries));
    expect(error.code).toBe('ZIP_INVALID');
    expect(error.message).toContain(message);
  });

  it('checks the declared sizes against every bomb limit', () => {
    const zeros = [{ name: 'z', data: '\0'.repeat(100_000) }];
    expect(failure(() => plan(zeros, { ratioFloorBytes: 1000 })).message).toContain('per-entry');
    expect(failure(() => plan(zeros, { ratioFloorBytes: 1000, maxEntryRatio: 1e9 })).message).toContain('overall');
    expect(failure(() => plan(zeros, { maxExtractedBytes: 99_999 })).code).toBe('ZIP_BOMB_DETECTED');
    expect(failure(() => plan([{ name: 'a' }, { name: 'b' }], { maxEntries: 1 })).code).toBe('ZIP_BOMB_DETECTED');
    expect(plan(zeros).totalBytes).toBe(100_000); // under the floor, a high ratio is harmless
  });

  it('leaves overlapping entries to the layout check open runs next (layout.ts), which knows the exact bound', () => {
    expect(
      plan([
        { name: 'a', data: 'a'.repeat(1000) },
        { name: 'b', shareDataOf: 0 },
      ]).fileCount,
    ).toBe(2);
  });

  it('hands every refusal to a collecting refuse, the first being the one open throws', () => {
    const entries: RawEntry[] = [
      { name: '../up', data: 'x' },
      { name: 'x' },
      { name: 'x' },
      { name: 'secret', data: 'x', flags: 0x41 }, // strong encryption: still refused (ZipCrypto and AES are read)
      { name: 'C:/win', data: 'x' },
    ];
    const refusals: ZipfsError[] = [];
    plan(entries, { maxEntries: 4 }, (refusal: ZipfsError) => refusals.push(refusal));
    expect(refusals.map((r) => r.code)).toStrictEqual([
      'ZIP_BOMB_DETECTED',
      'PATH_TRAVERSAL',
      'ZIP_INVALID',
      'PATH_TRAVERSAL',
      'ZIP_INVALID',
    ]);
    expect(refusals[0]).toStrictEqual(failure(() => plan(entries, { maxEntries: 4 })));
    expect(refusals.slice(1).map((r) => r.message.slice(0, 22))).toStrictEqual([
      'Entry "../up" climbs o',
      'Entries "x" and "x" ar',
      'Entry "C:/win" starts ',
      'Entry "secret": is enc',
    ]);
  });
});
