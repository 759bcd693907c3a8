/**
 * zstd decode throughput (method 93, src/zip/codecs/zstd.ts) against the zstd CLI and 7-Zip on the same ~30 MB
 * entry: `bun scripts/bench/zstd-decode.ts [rounds]`. The entry is seeded log-like text (about 5:1 at level 3),
 * written into a zip by zipfs's own zstd encoder; the CLI decodes the same frame from a file to /dev/null, 7-Zip
 * tests the zip (`7zz t`: decode and CRC, nothing written), zipfs reads the entry whole and streamed, in process,
 * with the CRC check, from a warm page cache. Prints the median of each and the ratio to the CLI's. Under a minute.
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
  readEntryData,
  streamEntryData,
} from '../../src/zip/index.ts';
import { median } from './report.ts';

const rounds = Number(process.argv[2] ?? 5);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-zstd-bench-'));

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

const data = logText(30 << 20);
const { data: frame } = encodeWhole(data, 93);
const framePath = path.join(dir, 'entry.zst');
fs.writeFileSync(framePath, frame);
const zipPath = path.join(dir, 'entry.zip');
const fd = fs.openSync(zipPath, 'w');
const writer = new ZipWriter(fd);
writer.addEntry(
  {
    versionMadeBy: 0x314,
    flags: 0,
    method: 93,
    dosTime: 0,
    dosDate: 0x21,
    crc32: crc32(data),
    compressedSize: frame.length,
    uncompressedSize: data.length,
    rawName: new TextEncoder().encode('entry.log'),
    comment: new Uint8Array(0),
    internalAttributes: 0,
    externalAttributes: 0,
  },
  [],
  [],
  frame,
);
writer.finish(new Uint8Array(0), false);
fs.closeSync(fd);

const source = new FileSource(zipPath);
const entry = readCentralDirectory(source).entries[0]!;
const span = locateEntryData(source, entry);
const rows: Record<string, number[]> = { 'zstd CLI': [], '7zz t': [], 'zipfs whole': [], 'zipfs streamed': [] };
const has = (command: string) => Bun.which(command) !== null;
for (let round = 0; round <= rounds; round++) {
  const times = {
    'zstd CLI': has('zstd') ? time(() => spawnSync('zstd', ['-q', '-d', '-c', framePath], { stdio: 'ignore' })) : NaN,
    '7zz t': has('7zz') ? time(() => spawnSync('7zz', ['t', zipPath], { stdio: 'ignore' })) : NaN,
    'zipfs whole': time(() => {
      readEntryData(source, entry);
    }),
    'zipfs streamed': await timeAsync(() => streamEntryData(source, entry, span, () => {})),
  };
  if (round === 0) continue; // warm-up
  for (const [name, ms] of Object.entries(times)) rows[name]!.push(ms);
}
source.close();
fs.rmSync(dir, { recursive: true, force: true });

const mb = data.length / 1e6;
const cli = median(rows['zstd CLI']!);
console.log(`entry: ${mb.toFixed(1)} MB of text, ${(frame.length / 1e6).toFixed(1)} MB as zstd; ${rounds} rounds`);
for (const [name, times] of Object.entries(rows)) {
  const ms = median(times);
  console.log(
    `${name.padEnd(15)} ${ms.toFixed(1).padStart(7)} ms  ${(mb / (ms / 1000)).toFixed(0).padStart(5)} MB/s  ` +
      `${(ms / cli).toFixed(2)}x the CLI's time`,
  );
}
