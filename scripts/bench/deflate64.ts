#!/usr/bin/env bun
/**
 * Deflate64 read throughput: zipfs's own inflater (src/zip/codecs/inflate64.ts) against 7-Zip on
 * the same entry, written by 7-Zip with -mm=Deflate64. 7-Zip: `7zz t` of the zip (decode and
 * CRC, one thread: one entry); zipfs: readEntryData (whole) and streamEntryData (1 MiB pieces),
 * both with the CRC check, in process. Rounds interleaved after a warm-up; medians and ratios.
 *   bun scripts/bench/deflate64.ts [--mb 40] [--rounds 5]
 * Timings never go into tests.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  FileSource,
  locateEntryData,
  readCentralDirectory,
  readEntryData,
  streamEntryData,
} from '../../src/zip/index.ts';

const { values } = parseArgs({
  options: { mb: { type: 'string', default: '40' }, rounds: { type: 'string', default: '5' } },
});
const bytes = Number(values.mb) * 1_000_000;
const rounds = Number(values.rounds);
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-bench-deflate64-'));

/** Text like a source tree: this repository's own files, repeated with their line numbers changed. */
function sourceText(): Buffer {
  const root = path.resolve(import.meta.dir, '..', '..', 'src');
  const files = (fs.readdirSync(root, { recursive: true }) as string[]).filter((name) => name.endsWith('.ts'));
  const pieces: Buffer[] = [];
  let size = 0;
  for (let round = 0; size < bytes; round++)
    for (const name of files) {
      const text = fs.readFileSync(path.join(root, name), 'utf8').replaceAll('\n', `\n// ${round}\n`);
      pieces.push(Buffer.from(text));
      size += text.length;
    }
  return Buffer.concat(pieces).subarray(0, bytes);
}

/** Half noise, half text, in 256 KiB stretches: stored and coded blocks both. */
function mixed(text: Buffer): Buffer {
  const out = Buffer.alloc(bytes);
  let state = 7;
  for (let at = 0; at < bytes; at++) {
    if ((at >> 18) % 2 === 0) {
      state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
      out[at] = state >>> 24;
    } else out[at] = text[at]!;
  }
  return out;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!;
}

async function measure(label: string, data: Buffer): Promise<void> {
  const file = path.join(scratch, `${label}.bin`);
  const zip = path.join(scratch, `${label}.zip`);
  fs.writeFileSync(file, data);
  execFileSync('7zz', ['a', '-tzip', '-mm=Deflate64', zip, file], { stdio: 'ignore' });
  const source = new FileSource(zip);
  const [entry] = readCentralDirectory(source).entries;
  const times = { sevenZip: [] as number[], whole: [] as number[], stream: [] as number[] };
  for (let round = -1; round < rounds; round++) {
    let start = performance.now();
    execFileSync('7zz', ['t', '-mmt1', zip], { stdio: 'ignore' });
    const sevenZip = performance.now() - start;
    start = performance.now();
    readEntryData(source, entry!);
    const whole = performance.now() - start;
    start = performance.now();
    await streamEntryData(source, entry!, locateEntryData(source, entry!), () => {});
    const stream = performance.now() - start;
    if (round < 0) continue; // the warm-up
    times.sevenZip.push(sevenZip);
    times.whole.push(whole);
    times.stream.push(stream);
  }
  source.close();
  const mbs = (ms: number) => `${(data.length / ms / 1000).toFixed(0)} MB/s`;
  const [s, w, t] = [median(times.sevenZip), median(times.whole), median(times.stream)];
  console.log(
    `${label}: ${(data.length / 1e6).toFixed(0)} MB -> ${(entry!.compressedSize / 1e6).toFixed(1)} MB; ` +
      `7zz t ${s.toFixed(0)} ms (${mbs(s)}), zipfs whole ${w.toFixed(0)} ms (${mbs(w)}, ${(w / s).toFixed(2)}x), ` +
      `streamed ${t.toFixed(0)} ms (${mbs(t)}, ${(t / s).toFixed(2)}x)`,
  );
}

const text = sourceText();
await measure('text', text);
await measure('mixed', mixed(text));
fs.rmSync(scratch, { recursive: true, force: true });
