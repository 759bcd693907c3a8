/**
 * inspect warns of exactly what open refuses. It once ran only the checks of
 * the central directory, so archives whose local headers or byte ranges open
 * refuses (a folder entry running into the next one, a local header that
 * disagrees with its central record, a folder whose empty data is damaged)
 * showed no warning, though the README said a warning-free inspect means open
 * takes the archive. Now inspect runs open's own checks, collecting every
 * refusal instead of stopping at the first: its first warning is open's
 * answer, code and message.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { corpusPath, loadCorpus } from '../helpers/corpus.ts';
import { patchCentral, rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { BufferSource, readCentralDirectory } from '../../src/zip/index.ts';

const box = sandbox();
afterAll(() => box.cleanup());

/** A field of an entry's local header or central record: `width` bytes at `offset` into it. */
interface Field {
  where: 'local' | 'central';
  offset: number;
  width?: 2 | 4;
}

/** A copy of `bytes` with a field of `name`'s local header or central record overwritten with `value`. */
function patch(bytes: Uint8Array, name: string, { where, offset, width = 2 }: Field, value: number): Uint8Array {
  const entry = readCentralDirectory(new BufferSource(bytes)).entries.find((e) => e.name === name)!;
  const out = Buffer.from(bytes);
  const at = (where === 'local' ? entry.localHeaderOffset : entry.centralOffset) + offset;
  if (width === 2) out.writeUInt16LE(value, at);
  else out.writeUInt32LE(value >>> 0, at);
  return new Uint8Array(out);
}

/** Fields of a local header and a central record. */
const LOCAL = {
  signature: { where: 'local', offset: 0, width: 4 },
  method: { where: 'local', offset: 8 },
  crc: { where: 'local', offset: 14, width: 4 },
  name: { where: 'local', offset: 30 },
} as const satisfies Record<string, Field>;
const CENTRAL = {
  versionNeeded: { where: 'central', offset: 6 },
  method: { where: 'central', offset: 10 },
  crc: { where: 'central', offset: 16, width: 4 },
} as const satisfies Record<string, Field>;

/** A file, a folder and a file after it: a folder with neighbours on both sides. */
const three = () =>
  rawZip([
    { name: 'a.txt', data: 'first file\n'.repeat(20) },
    { name: 'dir/', data: '', method: 0 },
    { name: 'dir/b.txt', data: 'second\n'.repeat(20) },
  ]);
const zeros = [
  { name: 'zeros.txt', data: 'a'.repeat(200_000) },
  { name: 'b.txt', data: 'b' },
  { name: 'c.txt', data: 'c' },
] satisfies RawEntry[];

const CASES: [string, () => Uint8Array, string, Record<string, string>?][] = [
  ['a name climbing out with ..', () => rawZip([{ name: '../evil.txt', data: 'x' }]), 'PATH_TRAVERSAL'],
  ['an absolute name', () => rawZip([{ name: '/etc/evil', data: 'x' }]), 'PATH_TRAVERSAL'],
  ['a drive letter', () => rawZip([{ name: 'C:\\evil.txt', data: 'x' }]), 'PATH_TRAVERSAL'],
  ['a strongly encrypted entry', () => rawZip([{ name: 'secret.txt', data: 'x', flags: 0x41 }]), 'ZIP_INVALID'],
  [
    'an unsupported method (ppmd)',
    () =>
      patch(
        patch(rawZip([{ name: 'a.ppmd', data: 'x', method: 0 }]), 'a.ppmd', CENTRAL.method, 98),
        'a.ppmd',
        LOCAL.method,
        98,
      ),
    'ZIP_INVALID',
  ],
  ['more entries than ZIPFS_MAX_ENTRIES', () => rawZip(zeros), 'ZIP_BOMB_DETECTED', { ZIPFS_MAX_ENTRIES: '2' }],
  [
    'more bytes than ZIPFS_MAX_EXTRACTED_BYTES',
    () => rawZip(zeros),
    'ZIP_BOMB_DETECTED',
    { ZIPFS_MAX_EXTRACTED_BYTES: '100000' },
  ],
  ['an entry over the per-entry ratio', () => rawZip(zeros), 'ZIP_BOMB_DETECTED', { ZIPFS_RATIO_FLOOR_BYTES: '1000' }],
  [
    'an archive over the overall ratio',
    () => rawZip(zeros),
    'ZIP_BOMB_DETECTED',
    { ZIPFS_RATIO_FLOOR_BYTES: '1000', ZIPFS_MAX_ENTRY_RATIO: '100000' },
  ],
  [
    'entries sharing data',
    () =>
      rawZip([
        { name: 'a.txt', data: 'a'.repeat(5000) },
        { name: 'b.txt', shareDataOf: 0 },
      ]),
    'ZIP_BOMB_DETECTED',
  ],
  [
    'a folder entry running into the next entry',
    () => patchCentral(three(), 'dir/', 'compressedSize', 60),
    'ZIP_BOMB_DETECTED',
  ],
  [
    'two entries with one name',
    () =>
      rawZip([
        { name: 'a.txt', data: '1' },
        { name: 'a.txt', data: '2' },
      ]),
    'ZIP_INVALID',
  ],
  [
    'a file where another entry needs a folder',
    () =>
      rawZip([
        { name: 'x', data: '1' },
        { name: 'x/y', data: '2' },
      ]),
    'ZIP_INVALID',
  ],
  ['a name part over 255 bytes', () => rawZip([{ name: `${'n'.repeat(256)}.txt`, data: 'x' }]), 'ZIP_INVALID'],
  [
    'a folder entry that claims data',
    () => rawZip([{ name: 'd/', data: '', method: 0, declaredSize: 10 }]),
    'ZIP_INVALID',
  ],
  ['a local header naming another entry', () => patch(three(), 'dir/b.txt', LOCAL.name, 0x5858), 'ZIP_INVALID'],
  ['a local header with another CRC-32', () => patch(three(), 'a.txt', LOCAL.crc, 1), 'ZIP_INVALID'],
  [
    'a local-header offset past the entries',
    () => patchCentral(three(), 'dir/', 'localHeaderOffset', 100_000),
    'ZIP_INVALID',
  ],
  ['no local header where one should be', () => patch(three(), 'dir/', LOCAL.signature, 0), 'ZIP_INVALID'],
  [
    'a version needed newer than any specification',
    () => patch(three(), 'a.txt', CENTRAL.versionNeeded, 99),
    'ZIP_INVALID',
  ],
  [
    'a folder whose empty data fails its CRC-32',
    () =>
      patch(
        patch(
          rawZip([
            { name: 'a.txt', data: 'x' },
            { name: 'd/', data: '' },
          ]),
          'd/',
          CENTRAL.crc,
          1,
        ),
        'd/',
        LOCAL.crc,
        1,
      ),
    'ZIP_INVALID',
  ],
];

describe("inspect warns of what open refuses, with open's code and message", () => {
  it.each(CASES)('%s', (_what, build, code, env = {}) => {
    const zip = writeZip(box.dir, 'refused.zip', build());
    const opened = box.run(['open', zip, '--json'], { env });
    expect(opened.json.error?.code).toBe(code);
    const { warnings } = box.run(['inspect', zip, '--json'], { env }).json;
    expect(warnings[0]).toBe(`open would refuse it (${code}): ${opened.json.error.message}`);
    const workspaces = path.join(box.home, 'workspaces');
    expect(fs.existsSync(workspaces) ? fs.readdirSync(workspaces) : []).toStrictEqual([]);
  });

  it('names every refusal of an archive with many, one per entry concerned, in the order open checks them', () => {
    const bytes = patchCentral(
      rawZip([
        { name: '../up.txt', data: 'x' },
        { name: 'secret.txt', data: 'x', flags: 0x41 },
        { name: 'dup.txt', data: '1' },
        { name: 'dup.txt', data: '2' },
        { name: 'dir/', data: '', method: 0 },
        { name: 'last.txt', data: 'last' },
      ]),
      'dir/',
      'compressedSize',
      40,
    );
    const zip = writeZip(box.dir, 'many.zip', bytes);
    const refusals = box
      .run(['inspect', zip, '--json'])
      .json.warnings.map((w: string) =>
        w.replace(/^open would refuse it \((\w+)\): (Entry|Entries) ("[^"]*").*$/, '$1 $3'),
      );
    expect(refusals).toStrictEqual([
      'PATH_TRAVERSAL "../up.txt"',
      'ZIP_INVALID "dup.txt"',
      'ZIP_INVALID "secret.txt"',
      'ZIP_BOMB_DETECTED "dir/"',
    ]);
  });

  it('refuses what is no zip at all as open does, having nothing to list', () => {
    const zip = writeZip(box.dir, 'text.zip', new TextEncoder().encode('not a zip\n'));
    const opened = box.run(['open', zip, '--json']).json.error;
    expect(opened.code).toBe('ZIP_INVALID');
    expect(box.run(['inspect', zip, '--json']).json.error).toStrictEqual(opened);
  });
});

describe('inspect on the conformance corpus', () => {
  it("shows no refusal for every archive open takes, and open's own for every one it refuses by its headers", () => {
    const seen = { taken: 0, refused: 0 };
    for (const record of loadCorpus()) {
      const file = corpusPath(record.file);
      const opened = box.run(['open', file, '--name', 'probe', '--json']);
      const inspected = box.run(['inspect', file, '--json']).json;
      const refusals = (inspected.warnings ?? []).filter((w: string) => w.startsWith('open would refuse it'));
      if (opened.code === 0) {
        seen.taken++;
        expect(refusals, record.file).toStrictEqual([]);
        expect(box.run(['close', 'probe', '--force', '--json']).json.closed).toBe(true);
      } else if (inspected.error) {
        expect(inspected.error, record.file).toStrictEqual(opened.json.error); // no central directory to list
      } else if (refusals.length > 0) {
        seen.refused++;
        expect(refusals[0], record.file).toBe(
          `open would refuse it (${opened.json.error.code}): ${opened.json.error.message}`,
        );
      } else {
        // Damaged data (a CRC-32 mismatch) shows only when open inflates it; inspect reads no data.
        expect([record.error_stage, opened.json.error.message], record.file).toMatchObject([
          'read',
          expect.stringContaining('CRC-32'),
        ]);
      }
    }
    expect(seen.taken).toBeGreaterThan(40);
    expect(seen.refused).toBeGreaterThanOrEqual(3);
  }, 60_000);
});
