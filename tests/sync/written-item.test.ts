/**
 * A sync that copies an unchanged entry in place keeps its manifest record (written-item.ts, movedRecord): the kept
 * record must say everything entryRecord says of an entry, in the same order, so the next manifest line is the one a
 * parsed entry would give. A field added to entryRecord and not to movedRecord would be lost at the first sync.
 */
import { describe, expect, it } from 'bun:test';
import { entryRecord } from '../../src/session/manifest.ts';
import { entryCounts, movedRecord } from '../../src/sync/written-item.ts';
import type { ZipEntry } from '../../src/zip/index.ts';

const entry: ZipEntry = {
  index: 3,
  name: 'docs/a.txt',
  rawName: new TextEncoder().encode('docs/a.txt'),
  isDirectory: false,
  isSymlink: false,
  versionMadeBy: 0x031e,
  versionNeeded: 20,
  flags: 0x0800,
  method: 8,
  dosTime: 0x6000,
  dosDate: 0x5821,
  modifiedAt: new Date(1_700_000_000_000),
  crc32: 0xdeadbeef,
  compressedSize: 40,
  uncompressedSize: 100,
  internalAttributes: 1,
  externalAttributes: 0o100644 << 16,
  unixMode: 0o100644,
  comment: '',
  rawExtra: new Uint8Array(),
  rawComment: new Uint8Array(),
  localHeaderOffset: 1000,
  centralOffset: 5000,
  centralLength: 56,
};

describe('an unchanged entry kept in place', () => {
  it('keeps every field entryRecord writes, in its order, with its new index and offsets', () => {
    const parsed = entryRecord(entry, 'docs/a.txt', 'file');
    const kept = movedRecord(
      { ...parsed, extracted: { size: 100, mtime_ms: 1, ctime_ms: 2, ino: 3 } },
      {
        index: 7,
        at: 2000,
        centralOffset: 9000,
      },
    );
    expect(Object.keys(kept)).toStrictEqual(Object.keys(parsed));
    expect(kept).toStrictEqual({ ...parsed, index: 7, local_header_offset: 2000, central_offset: 9000 });
  });
});

describe("the next session record's counts", () => {
  it('counts files and links, not folders, and names the links in entry order', () => {
    const records = [
      entryRecord({ ...entry, uncompressedSize: 0 }, 'docs', 'dir'),
      entryRecord(entry, 'docs/a.txt', 'file'),
      entryRecord({ ...entry, uncompressedSize: 7 }, 'docs/deep/link', 'symlink'),
      entryRecord({ ...entry, uncompressedSize: 5 }, 'top.txt', 'file'),
      entryRecord({ ...entry, uncompressedSize: 3 }, 'a-link', 'symlink'),
    ];
    expect(entryCounts(records)).toStrictEqual({
      file_count: 4,
      dir_count: 2,
      extracted_size_bytes: 115,
      symlinks: ['docs/deep/link', 'a-link'],
    });
  });
});
