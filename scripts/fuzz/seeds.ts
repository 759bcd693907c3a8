/**
 * The archives mutants are made from: every archive of the shared corpus
 * (other projects' zips, good and bad) and a few built here for what the
 * corpus lacks: folder entries between files, a "./" root entry (bsdtar),
 * stored and deflated data, Unix modes and a symlink, zip64 records.
 */
import fs from 'node:fs';
import path from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { rawZip } from '../../tests/helpers/raw-zip.ts';

export interface Seed {
  name: string;
  bytes: Uint8Array;
}

export function loadSeeds(corpusDir: string): Seed[] {
  const seeds: Seed[] = [];
  const expectations = JSON.parse(fs.readFileSync(path.join(corpusDir, 'expectations.json'), 'utf8')) as {
    files: { file: string; kind: string }[];
  };
  for (const record of expectations.files) {
    if (record.kind === 'archive')
      seeds.push({ name: record.file, bytes: new Uint8Array(fs.readFileSync(path.join(corpusDir, record.file))) });
  }
  const mtime = new Date('2025-01-30T12:00:00Z');
  seeds.push({
    name: 'built/fflate-tree.zip',
    bytes: zipSync(
      {
        'README.txt': strToU8('readme\n'),
        data: { 'a.csv': strToU8('id,v\n1,2\n'.repeat(50)), empty: {} },
        'raw.bin': [new Uint8Array(300).map((_, i) => i), { level: 0 }],
      },
      { mtime },
    ),
  });
  seeds.push({
    name: 'built/folders-and-link.zip',
    bytes: rawZip([
      { name: './', data: '', method: 0, unixMode: 0o040755 },
      { name: 'a.txt', data: 'alpha\n'.repeat(30), unixMode: 0o100644 },
      { name: 'dir/', data: '', method: 0, unixMode: 0o040755 },
      { name: 'dir/b.txt', data: 'beta', method: 0, unixMode: 0o100600 },
      { name: 'dir/link', data: 'b.txt', method: 0, unixMode: 0o120777 },
      { name: 'z/', data: '', method: 0 },
    ]),
  });
  const zip64 = Bun.which('python3') === null ? undefined : Bun.spawnSync(['python3', '-c', ZIP64_SCRIPT]);
  if (zip64?.exitCode === 0) seeds.push({ name: 'built/python-zip64.zip', bytes: new Uint8Array(zip64.stdout) });
  return seeds;
}

const ZIP64_SCRIPT = `
import io, sys, zipfile
buffer = io.BytesIO()
with zipfile.ZipFile(buffer, 'w', zipfile.ZIP_DEFLATED) as z:
    z.comment = b'zip64 seed'
    with z.open('forced.txt', 'w', force_zip64=True) as f: f.write(b'forced zip64 sizes\\n' * 20)
    z.writestr('dir/', b'')
    z.writestr('dir/plain.txt', 'plain')
sys.stdout.buffer.write(buffer.getvalue())`;
