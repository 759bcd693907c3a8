/**
 * Changed and added files too large to hold in memory: sync streams them
 * through the deflater in pieces, and writes zip64 sizes where they need them.
 * A 4 GiB file once failed with ENOMEM; sparse files make one cheap to test.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { FileSource, checkLayout, readCentralDirectory } from '../../src/zip/index.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { needs } from '../helpers/tools.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => (box = sandbox()));
afterEach(() => box.cleanup());

function entriesOf(zip: string) {
  const source = new FileSource(zip);
  try {
    const directory = readCentralDirectory(source);
    checkLayout(source, directory);
    return new Map(directory.entries.map((e) => [e.name, e]));
  } finally {
    source.close();
  }
}

/** Python's zipfile reads every entry back, checking each CRC, and prints name -> sha256. */
function pythonHashes(zip: string): Record<string, string> {
  const script = `
import sys, zipfile, json, hashlib
out = {}
with zipfile.ZipFile(sys.argv[1]) as z:
    for info in z.infolist():
        h = hashlib.sha256()
        with z.open(info) as f:
            for chunk in iter(lambda: f.read(1 << 20), b''): h.update(chunk)
        out[info.filename] = h.hexdigest()
print(json.dumps(out))`;
  const result = Bun.spawnSync(['python3', '-c', script, zip]);
  if (result.exitCode !== 0) throw new Error(result.stderr.toString());
  return JSON.parse(result.stdout.toString());
}

const sha256 = (bytes: Uint8Array) => crypto.createHash('sha256').update(bytes).digest('hex');

describe('large files', () => {
  it.skipIf(needs('python3').skip)(
    `streams modified entries (stored stays stored) and additions over 8 MiB, read back identically by Python${needs('python3').why}`,
    () => {
      const zip = writeZip(
        box.dir,
        'media.zip',
        rawZip([
          { name: 'raw.bin', data: 'old', method: 0 },
          { name: 'text.txt', data: 'old text' },
        ]),
      );
      const root = box.run(['open', zip, '--json']).json.workspace_path;
      const random = crypto.randomBytes(12 << 20); // incompressible: an addition is stored
      const text = Buffer.from('a line of text that deflates well\n'.repeat(400_000)); // 13.6 MB
      fs.writeFileSync(path.join(root, 'raw.bin'), random);
      fs.writeFileSync(path.join(root, 'text.txt'), text);
      fs.writeFileSync(path.join(root, 'added-random.bin'), random);
      fs.writeFileSync(path.join(root, 'added-text.txt'), text);
      expect(box.run(['sync', '--json']).json).toMatchObject({ synced: true, files_modified: 2, files_added: 2 });

      const entries = entriesOf(zip);
      expect(entries.get('raw.bin')!.method).toBe(0);
      expect(entries.get('text.txt')!.method).toBe(8);
      expect(entries.get('added-random.bin')!.method).toBe(0);
      expect(entries.get('added-text.txt')!.method).toBe(8);
      expect(entries.get('added-text.txt')!.compressedSize).toBeLessThan(text.length / 50);
      expect(pythonHashes(zip)).toStrictEqual({
        'raw.bin': sha256(random),
        'text.txt': sha256(text),
        'added-random.bin': sha256(random),
        'added-text.txt': sha256(text),
      });
      expect(box.run(['status', '--json']).json).toStrictEqual({
        modified: [],
        added: [],
        deleted: [],
        unchanged_count: 4,
      });
    },
  );

  it.skipIf(needs('unzip', 'python3').skip)(
    `syncs an added file over 4 GiB (a sparse one) with zip64 sizes that unzip and Python read${needs('unzip', 'python3').why}`,
    () => {
      const zip = writeZip(box.dir, 'small.zip', rawZip([{ name: 'a.txt', data: 'a' }]));
      const root = box.run(['open', zip, '--json']).json.workspace_path;
      const size = 4 * 1024 ** 3 + (1 << 20);
      fs.writeFileSync(path.join(root, 'huge.bin'), '');
      fs.truncateSync(path.join(root, 'huge.bin'), size); // sparse: no disk used
      fs.writeFileSync(path.join(root, 'after.txt'), 'an entry after the big one');
      // 4 GiB of zeros is over open's limits (extracted bytes, ratio): sync says so before writing a byte, since
      // open would refuse the zip it wrote; with the limits raised, as for the open after, it syncs.
      const refused = box.run(['sync', '--json'], { timeoutMs: 30_000 }).json;
      expect(refused.error.code).toBe('ZIP_BOMB_DETECTED');
      expect(refused.error.message).toContain('ZIPFS_MAX_EXTRACTED_BYTES');
      expect(fs.readFileSync(zip).equals(Buffer.from(rawZip([{ name: 'a.txt', data: 'a' }])))).toBe(true);
      const trusted = {
        ZIPFS_MAX_EXTRACTED_BYTES: String(8 * 1024 ** 3),
        ZIPFS_MAX_RATIO: '10000',
        ZIPFS_MAX_ENTRY_RATIO: '10000',
      };
      expect(box.run(['sync', '--json'], { timeoutMs: 180_000, env: trusted }).json).toMatchObject({
        synced: true,
        files_added: 2,
      });

      const huge = entriesOf(zip).get('huge.bin')!;
      expect(huge.uncompressedSize).toBe(size);
      expect(huge.versionNeeded).toBe(45);
      const test = Bun.spawnSync(['unzip', '-t', zip]);
      expect(test.stdout.toString()).toContain('No errors detected');
      const listed = Bun.spawnSync([
        'python3',
        '-c',
        'import sys,zipfile; print([(i.filename, i.file_size) for i in zipfile.ZipFile(sys.argv[1]).infolist()])',
        zip,
      ]);
      expect(listed.stdout.toString().trim()).toBe(`[('a.txt', 1), ('after.txt', 26), ('huge.bin', ${size})]`);
      expect(box.run(['status', '--json']).json.added).toStrictEqual([]);
    },
    240_000,
  );
});
