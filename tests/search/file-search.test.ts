import { describe, expect, it } from 'bun:test';
import { FileSearch, type SearchOptions } from '../../src/search/file-search.ts';
import type { GrepMatch } from '../../src/search/grep-types.ts';
import { LINE_CAP_CHARS } from '../../src/search/line-search.ts';
import { wholeFileGrep } from '../helpers/whole-file-grep.ts';

/** A small seeded generator, so a failing split can be run again. */
function random(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % below;
  };
}

interface Outcome {
  matches: GrepMatch[];
  total: number;
  skippedBinary: number;
  cutLines: number;
}

/** How a streamed search is fed and capped: pieces of 1 to `largest` bytes from `seed`, at most `max` matches kept. */
interface Feed {
  seed: number;
  largest: number;
  max?: number;
  countAll?: boolean;
}

/** The streaming search of `bytes` fed in pieces of 1 to `largest` bytes. */
function streamed(
  bytes: Uint8Array,
  options: SearchOptions,
  { seed, largest, max = Infinity, countAll = true }: Feed,
): Outcome {
  const outcome: Outcome = { matches: [], total: 0, skippedBinary: 0, cutLines: 0 };
  const sink = {
    count: () => ++outcome.total <= max,
    full: () => outcome.total > max && !countAll,
    keep: (match: GrepMatch) => void outcome.matches.push(match),
    cutLine: () => void outcome.cutLines++,
    gaveUp: () => undefined,
    skippedBinary: () => void outcome.skippedBinary++,
  };
  const search = new FileSearch('f', options, new RegExp(options.pattern, options.flags), sink);
  const next = random(seed);
  for (let at = 0; at < bytes.length; ) {
    const size = 1 + next(largest);
    if (!search.push(bytes.subarray(at, at + size))) break;
    at += size;
  }
  search.end();
  return outcome;
}

const options = (pattern: string, more: Partial<SearchOptions> = {}): SearchOptions => ({
  pattern,
  flags: '',
  contextLines: 0,
  encoding: 'utf-8',
  binary: false,
  ...more,
});

function utf16(text: string, encoding: 'utf-16le' | 'utf-16be', bom: boolean): Uint8Array {
  const le = Buffer.from(`${bom ? '\ufeff' : ''}${text}`, 'utf16le');
  return encoding === 'utf-16le' ? le : le.swap16();
}

const lines = Array.from({ length: 400 }, (_, i) =>
  i % 13 === 0 ? `${i} needle é€😀 end` : `${i} hay ${'x'.repeat(i % 50)}`,
);
const cases: [string, Uint8Array, SearchOptions][] = [
  ['UTF-8, LF', Buffer.from(`${lines.join('\n')}\n`), options('needle', { contextLines: 2 })],
  ['UTF-8, CRLF, no final newline', Buffer.from(lines.join('\r\n')), options('needle.*end$', { contextLines: 3 })],
  [
    'UTF-8 with a BOM, anchored at the first line',
    Buffer.from(`\ufeff${lines.join('\n')}`),
    options('^0 ', { contextLines: 1 }),
  ],
  [
    'UTF-8 with bad bytes becoming U+FFFD',
    Buffer.concat([
      Buffer.from('a\nb needle \xff\xfe'),
      Buffer.from([0xc3, 0x28, 0x0a, 0xe2, 0x82]),
      Buffer.from(' needle\n'),
    ]),
    options('needle|\ufffd', { contextLines: 1 }),
  ],
  [
    'blank lines, a lone CR line and CR inside lines',
    Buffer.from('\n\r\n\r\na\rb\nneedle\r\r\n\n\r'),
    options('^$|needle|\r', { contextLines: 2 }),
  ],
  ['UTF-16LE with a BOM, CRLF', utf16(lines.join('\r\n'), 'utf-16le', true), options('needle', { contextLines: 2 })],
  ['UTF-16BE with a BOM', utf16(`${lines.join('\n')}\n`, 'utf-16be', true), options('😀', { contextLines: 1 })],
  [
    'UTF-16LE without a BOM, asked, odd final byte',
    Buffer.concat([utf16(lines.join('\n'), 'utf-16le', false), Buffer.from([0x41])]),
    options('needle|\ufffd', { encoding: 'utf-16le' }),
  ],
  [
    'UTF-16LE with a lone surrogate',
    Buffer.from([0xff, 0xfe, 0x61, 0x00, 0x00, 0xd8, 0x0a, 0x00, 0x3d, 0xd8, 0x00, 0xde]),
    options('\ufffd|😀'),
  ],
  [
    'ISO-8859-1 asked',
    Buffer.from('caf\xe9 needle\n\x80\x9f\n', 'latin1'),
    options('é|\u0080', { encoding: 'iso-8859-1' }),
  ],
  [
    'Windows-1252 asked',
    Buffer.from('price \x80 needle\n\x81\x8d\n', 'latin1'),
    options('€|\u0081', { encoding: 'windows-1252' }),
  ],
  [
    'ignoring case, lookbehind',
    Buffer.from(`${lines.join('\n')}\n`),
    options('(?<=\\d )NEEDLE', { flags: 'i', contextLines: 1 }),
  ],
];

describe('FileSearch: a file searched as a stream of pieces', () => {
  it.each(cases)('finds what the whole-file search finds: %s', (_, bytes, opts) => {
    const whole = wholeFileGrep('f', bytes, opts);
    expect(whole.matches.length).toBeGreaterThan(0);
    for (const [seed, largest] of [
      [1, 1],
      [2, 3],
      [3, 17],
      [4, 4096],
      [5, 1 << 20],
    ] as const) {
      expect(streamed(bytes, opts, { seed, largest })).toStrictEqual({
        matches: whole.matches,
        total: whole.matches.length,
        skippedBinary: 0,
        cutLines: 0,
      });
    }
  });

  it('stops at max_results, yet completes the context after the last match kept', () => {
    const bytes = Buffer.from(`${lines.join('\n')}\n`);
    const opts = options('needle', { contextLines: 4 });
    const whole = wholeFileGrep('f', bytes, opts).matches;
    const capped = streamed(bytes, opts, { seed: 7, largest: 100, max: 3, countAll: false });
    expect(capped).toStrictEqual({ matches: whole.slice(0, 3), total: 4, skippedBinary: 0, cutLines: 0 });
    expect(capped.matches[2]!.context_after).toHaveLength(4);
    expect(streamed(bytes, opts, { seed: 8, largest: 100, max: 3, countAll: true })).toStrictEqual({
      matches: whole.slice(0, 3),
      total: whole.length,
      skippedBinary: 0,
      cutLines: 0,
    });
  });

  it('skips a binary file from its head, or finds its first match with the byte offset on request', () => {
    const bytes = new Uint8Array(300_000).map((_, i) => (i * 7919) % 251);
    Buffer.from('xx class com/example/Needle; yy').copy(bytes, 200_000);
    expect(streamed(bytes, options('Needle'), { seed: 1, largest: 70_000 })).toStrictEqual({
      matches: [],
      total: 0,
      skippedBinary: 1,
      cutLines: 0,
    });
    for (const pattern of ['com/\\w+/Needle', '^\\x00', '[\\s\\S]$', 'Needle(?=; yy)', '(?<!x)Needle', 'absent']) {
      const opts = options(pattern, { binary: true });
      const whole = wholeFileGrep('f', bytes, opts).matches;
      for (const [seed, largest] of [
        [1, 5000],
        [2, 70_000],
        [3, 1 << 20],
      ] as const) {
        expect(streamed(bytes, opts, { seed, largest }).matches).toStrictEqual(whole);
      }
    }
    expect(wholeFileGrep('f', bytes, options('com/\\w+/Needle', { binary: true })).matches[0]!.byte_offset).toBe(
      200_009,
    );
  });

  it('searches a line longer than the cap in its first LINE_CAP_CHARS characters, and says so', () => {
    const long = `${'a'.repeat(1000)}needle${'b'.repeat(LINE_CAP_CHARS)}late-needle\r\nneedle\n`;
    const outcome = streamed(Buffer.from(long), options('needle', { contextLines: 1 }), { seed: 9, largest: 1 << 20 });
    expect(outcome.cutLines).toBe(1);
    expect(outcome.matches.map((m) => m.line_number)).toStrictEqual([1, 2]);
    // The marks count the whole line, the part not kept too (and not its CR): shown from 100 before the match, 500 characters.
    expect(outcome.matches[0]!.line_content).toEndWith(` …[${long.indexOf('\r') - 1400} more chars]`);
    expect(outcome.matches[1]!.context_before).toStrictEqual([
      `${'a'.repeat(500)} …[${long.indexOf('\r') - 500} more chars]`,
    ]);
  });
});
