/**
 * Decoder throughput, every method zipfs reads, against 7-Zip on the same entries (issue 32):
 * `bun scripts/bench/decoders.ts [rounds]`. One ~30 MB entry of seeded log-like text is put in a zip per
 * method: by 7-Zip for deflate, Deflate64, bzip2, LZMA and xz (`7zz a -tzip -mm=...`), by zipfs's own encoder for
 * zstd (this 7-Zip reads zstd zips but does not write them). 7-Zip tests each zip on one thread (`7zz t -mmt=1`:
 * decode and CRC, nothing written; its process start-up is a few ms of it); zipfs streams the same entry in process
 * with its CRC check (src/zip/index.ts streamEntryData), from a warm page cache. Prints the median of each and
 * zipfs's time as a ratio of 7-Zip's. A few minutes.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { crc32 } from '../../src/zip/codec.ts';
import {
  FileSource,
  ZipWriter,
  encodeWhole,
  locateEntryData,
  readCentralDirectory,
  streamEntryData,
} from '../../src/zip/index.ts';
import { median } from './report.ts';

const rounds = Number(process.argv[2] ?? 3);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-decoders-bench-'));

/** ~30 MB of log lines from a seeded generator: words, numbers and ids, compressible as real logs are. */
function logText(bytes: number): Buffer {
  let seed = 42;
  const next = () => {
    // xorshift32: the low bits of a plain LCG repeat too soon, and the text would compress 1000:1
    seed ^= seed << 13;
    seed ^= seed >>> 17;
    seed ^= seed << 5;
    return seed >>> 0;
  };
  const words = ['GET', 'POST', 'user', 'session', 'timeout', 'ok', 'error', 'retry', 'cache', 'miss', 'hit'];
  const lines: string[] = [];
  let size = 0;
  while (size < bytes) {
    const line =
      `2026-11-28T${String(next() % 24).padStart(2, '0')}:${String(next() % 60).padStart(2, '0')} ` +
      `${words[next() % words.length]} /api/v1/${words[next() % words.length]}/${next() % 100000} ` +
      `id=${next().toString(16)} took=${next() % 5000}ms\n`;
    lines.push(line);
    size += line.length;
  }
  return Buffer.from(lines.join(''));
}

function time(run: () => void): number {
  const started = performance.now();
  run();
  return performance.now() - started;
}

async function timeAsync(run: () => Promise<void>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

/** A zip of `data` as entry.log, written by zipfs in `method` (zstd: no writer here puts it in a zip). */
function zipfsZip(data: Buffer, method: number, zipPath: string): void {
  const { data: packed } = encodeWhole(data, method);
  const fd = fs.openSync(zipPath, 'w');
  const writer = new ZipWriter(fd);
  const header = { versionMadeBy: 0x314, flags: 0, method, dosTime: 0, dosDate: 0x21, crc32: crc32(data) };
  const sizes = { compressedSize: packed.length, uncompressedSize: data.length };
  const name = { rawName: new TextEncoder().encode('entry.log'), comment: new Uint8Array(0) };
  writer.addEntry({ ...header, ...sizes, ...name, internalAttributes: 0, externalAttributes: 0 }, [], [], packed);
  writer.finish(new Uint8Array(0), false);
  fs.closeSync(fd);
}

if (!Bun.which('7zz')) {
  console.log('skipped: needs 7zz (Debian package 7zip)');
  process.exit(0);
}
const data = logText(30 << 20);
const entryPath = path.join(dir, 'entry.log');
fs.writeFileSync(entryPath, data);
const METHODS = [
  ['deflate', 'Deflate'],
  ['deflate64', 'Deflate64'],
  ['bzip2', 'BZip2'],
  ['lzma', 'LZMA'],
  ['xz', 'XZ'],
  ['zstd', undefined],
] as const;

const mb = data.length / 1e6;
console.log(`entry: ${mb.toFixed(1)} MB of log-like text; ${rounds} rounds, median ms (MB/s)`);
console.log('method      packed MB   7zz t -mmt=1        zipfs              zipfs / 7-Zip');
for (const [name, sevenZip] of METHODS) {
  const zipPath = path.join(dir, `${name}.zip`);
  if (sevenZip) spawnSync('7zz', ['a', '-tzip', `-mm=${sevenZip}`, zipPath, entryPath], { stdio: 'ignore' });
  else zipfsZip(data, 93, zipPath);
  const source = new FileSource(zipPath);
  const entry = readCentralDirectory(source).entries[0]!;
  const span = locateEntryData(source, entry);
  const sevens: number[] = [];
  const ours: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    const seven = time(() => spawnSync('7zz', ['t', '-mmt=1', zipPath], { stdio: 'ignore' }));
    const own = await timeAsync(() => streamEntryData(source, entry, span, () => {}));
    if (round === 0) continue; // warm-up
    sevens.push(seven);
    ours.push(own);
  }
  source.close();
  const [seven, own] = [median(sevens), median(ours)];
  const rate = (ms: number) => `${ms.toFixed(0).padStart(6)} (${(mb / (ms / 1000)).toFixed(0).padStart(4)})`;
  console.log(
    `${name.padEnd(10)} ${(entry.compressedSize / 1e6).toFixed(1).padStart(9)}   ${rate(seven)}      ` +
      `${rate(own)}      ${(own / seven).toFixed(2)}x`,
  );
}
fs.rmSync(dir, { recursive: true, force: true });
