import { afterAll, describe, expect, it } from 'bun:test';
import { needs } from '../helpers/tools.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZipfsError } from '../../src/base/errors.ts';
import {
  BufferSource,
  FileSource,
  locateEntryData,
  readCentralDirectory,
  readEntryData,
  streamEntryData,
} from '../../src/zip/index.ts';
import { rawZip } from '../helpers/raw-zip.ts';

const withPython = needs('python3');
const withZip = needs('zip');

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-reader-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

function readAll(bytes: Uint8Array) {
  const source = new BufferSource(bytes);
  const directory = readCentralDirectory(source);
  return {
    directory,
    contents: directory.entries.map((e) =>
      e.isDirectory ? null : Buffer.from(readEntryData(source, e)).toString('utf8'),
    ),
  };
}

function errorOf(fn: () => unknown): ZipfsError {
  try {
    fn();
  } catch (error) {
    if (error instanceof ZipfsError) return error;
    throw error;
  }
  throw new Error('expected a ZipfsError');
}

/** Runs Python's zipfile to write an archive, so the reader is checked against another writer. */
function python(script: string): Uint8Array {
  const file = path.join(scratch, `py-${Math.random().toString(36).slice(2)}.zip`);
  const result = Bun.spawnSync(['python3', '-c', script, file]);
  if (result.exitCode !== 0) throw new Error(result.stderr.toString());
  return fs.readFileSync(file);
}

describe('zip reader against other writers', () => {
  it.skipIf(withPython.skip)(
    `reads a zip64 archive written by Python with comments, UTF-8 names and both methods${withPython.why}`,
    () => {
      const bytes = python(`
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    z.comment = b'archive comment'
    i = zipfile.ZipInfo('stored.txt', (2024, 5, 6, 7, 8, 10))
    i.compress_type = zipfile.ZIP_STORED; i.comment = b'entry comment'
    z.writestr(i, 'plain')
    i = zipfile.ZipInfo('deflated/日本語.txt'); i.compress_type = zipfile.ZIP_DEFLATED
    with z.open(i, 'w', force_zip64=True) as f: f.write(b'y' * 5000)
`);
      const { directory, contents } = readAll(bytes);
      expect(directory.comment).toBe('archive comment');
      expect(directory.entries.map((e) => e.name)).toStrictEqual(['stored.txt', 'deflated/日本語.txt']);
      expect(directory.entries[0]!.comment).toBe('entry comment');
      expect(directory.entries[0]!.modifiedAt).toStrictEqual(new Date(2024, 4, 6, 7, 8, 10));
      expect(contents).toStrictEqual(['plain', 'y'.repeat(5000)]);
    },
  );

  it.skipIf(withPython.skip)(
    `reads zip64 end records and extra fields (Python with more than 65535 entries)${withPython.why}`,
    () => {
      const bytes = python(`
import sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w', allowZip64=True) as z:
    for i in range(65540): z.writestr(f'f{i}', '')
`);
      const { directory } = readAll(bytes);
      expect(directory.zip64).toBe(true);
      expect(directory.entries).toHaveLength(65540);
      expect(directory.entries.at(-1)!.name).toBe('f65539');
    },
  );

  it.skipIf(withZip.skip)(`reads Info-ZIP zip output: Unix modes, extended timestamps, symlinks${withZip.why}`, () => {
    const dir = path.join(scratch, 'infozip');
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\n');
    fs.chmodSync(path.join(dir, 'run.sh'), 0o755);
    fs.utimesSync(path.join(dir, 'run.sh'), new Date('2021-03-04T05:06:07Z'), new Date('2021-03-04T05:06:07Z'));
    fs.symlinkSync('run.sh', path.join(dir, 'link'));
    const zip = path.join(scratch, 'infozip.zip');
    const result = Bun.spawnSync(['zip', '-q', '-y', zip, 'run.sh', 'link'], { cwd: dir });
    expect(result.exitCode).toBe(0);
    const source = new FileSource(zip);
    const { entries } = readCentralDirectory(source);
    expect(entries[0]!.unixMode! & 0o777).toBe(0o755);
    expect(entries[0]!.modifiedAt.toISOString()).toBe('2021-03-04T05:06:07.000Z');
    expect(entries[1]!.isSymlink).toBe(true);
    expect(Buffer.from(readEntryData(source, entries[1]!)).toString()).toBe('run.sh');
    source.close();
  });

  it('finds the archive behind a prefix stub and past trailing junk', () => {
    const zip = rawZip([{ name: 'a.txt', data: 'hello' }], {
      comment: 'c',
      prefix: new TextEncoder().encode('#!/bin/sh\nexit 0\n'),
    });
    const withJunk = new Uint8Array([...zip, ...new TextEncoder().encode('junk after the end')]);
    const { directory, contents } = readAll(withJunk);
    expect(directory.baseOffset).toBe(17);
    expect(contents).toStrictEqual(['hello']);
    expect(directory.comment).toBe('c');
  });

  it('reads an empty archive', () => {
    expect(readAll(rawZip([])).directory.entries).toStrictEqual([]);
  });
});

describe('zip reader on damaged input', () => {
  const good = rawZip([{ name: 'a.txt', data: 'hello hello hello hello' }]);

  it('refuses a CRC mismatch, naming the entry', () => {
    const source = new BufferSource(good);
    const directory = readCentralDirectory(source);
    const corrupt = { ...directory.entries[0]!, crc32: directory.entries[0]!.crc32 ^ 1 };
    const error = errorOf(() => readEntryData(source, corrupt));
    expect(error.code).toBe('ZIP_INVALID');
    expect(error.message).toContain('"a.txt"');
    expect(error.message).toContain('CRC-32');
  });

  it('refuses truncated data as unexpected end of file', () => {
    const directory = readCentralDirectory(new BufferSource(good));
    const cut = new BufferSource(good.subarray(0, 40));
    expect(errorOf(() => readEntryData(cut, directory.entries[0]!)).message).toContain('unexpected end');
  });

  it('refuses an unsupported compression method by name', () => {
    const bytes = good.slice();
    const view = new DataView(bytes.buffer);
    const central = readCentralDirectory(new BufferSource(good)).entries[0]!.centralOffset;
    view.setUint16(central + 10, 98, true); // ppmd
    const source = new BufferSource(bytes);
    const error = errorOf(() => readEntryData(source, readCentralDirectory(source).entries[0]!));
    expect(error.message).toContain('method 98 (ppmd)');
  });

  it('refuses a non-zip and a cut-off end record', () => {
    expect(
      errorOf(() => readCentralDirectory(new BufferSource(new TextEncoder().encode('hello world, not a zip file'))))
        .code,
    ).toBe('ZIP_INVALID');
    expect(errorOf(() => readCentralDirectory(new BufferSource(good.subarray(0, good.length - 5)))).code).toBe(
      'ZIP_INVALID',
    );
  });
});

describe('streaming large entries', () => {
  const big = Buffer.alloc(12 * 1024 * 1024, 'streaming zipfs ');
  const collect = async (bytes: Uint8Array) => {
    const source = new BufferSource(bytes);
    const entry = readCentralDirectory(source).entries[0]!;
    const parts: Uint8Array[] = [];
    await streamEntryData(source, entry, locateEntryData(source, entry), (chunk) => parts.push(Buffer.from(chunk)));
    return Buffer.concat(parts);
  };

  it('returns the same bytes as a whole read, deflated or stored', async () => {
    for (const method of [8, 0] as const) {
      const out = await collect(rawZip([{ name: 'big.txt', data: big, method }]));
      expect(out.equals(big)).toBe(true);
    }
  });

  it('refuses a lying size, a CRC mismatch and cut-off data', async () => {
    const liar = rawZip([{ name: 'big.txt', data: big, declaredSize: 9 * 1024 * 1024 }]);
    await expect(collect(liar)).rejects.toMatchObject({ code: 'ZIP_BOMB_DETECTED' });
    const source = new BufferSource(rawZip([{ name: 'big.txt', data: big }]));
    const entry = { ...readCentralDirectory(source).entries[0]!, crc32: 1 };
    await expect(streamEntryData(source, entry, locateEntryData(source, entry), () => {})).rejects.toMatchObject({
      code: 'ZIP_INVALID',
      message: expect.stringContaining('CRC-32'),
    });
    const whole = rawZip([{ name: 'big.txt', data: big, method: 0 }]);
    const directory = readCentralDirectory(new BufferSource(whole));
    const cut = new BufferSource(whole.subarray(0, 5 * 1024 * 1024));
    await expect(
      streamEntryData(cut, directory.entries[0]!, { dataOffset: 37, dataEnd: 37 + big.length }, () => {}),
    ).rejects.toMatchObject({ code: 'ZIP_INVALID' });
  });
});
