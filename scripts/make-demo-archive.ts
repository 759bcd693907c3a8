#!/usr/bin/env bun
/** Writes scripts/demo/reports.zip, the example archive the quick start opens. Deterministic: same bytes every run. */
import { strToU8, zipSync } from 'fflate';
import fs from 'node:fs';
import path from 'node:path';

const mtime = new Date('2025-01-30T12:00:00Z');
const csv = (rows: number, seed: number) =>
  [
    'region,month,revenue',
    ...Array.from({ length: rows }, (_, i) =>
      [
        ['emea', 'apac', 'amer'][i % 3],
        `2025-${String((i % 12) + 1).padStart(2, '0')}`,
        (i * 7919 + seed) % 100000,
      ].join(','),
    ),
  ].join('\n') + '\n';

const archive = zipSync(
  {
    'README.txt': strToU8('Q4 report bundle.\nEdit data/config.json, then `zipfs sync` writes it back.\n'),
    data: {
      'config.json': strToU8(JSON.stringify({ debug: false, region: 'emea', currency: 'EUR' }, null, 2) + '\n'),
      'input.csv': strToU8(csv(200, 17)),
      'output.csv': strToU8(csv(50, 91)),
    },
    docs: { 'summary.md': strToU8('# Q4 summary\n\nRevenue grew in every region.\n') },
  },
  { mtime, level: 6 },
);
const out = path.join(import.meta.dir, 'demo', 'reports.zip');
fs.mkdirSync(path.dirname(out), { recursive: true });
fs.writeFileSync(out, archive);
console.error(`wrote ${path.relative(process.cwd(), out)} (${archive.length} bytes)`);
