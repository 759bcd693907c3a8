import { describe, expect, it } from 'bun:test';
import { escapeUnsafe, quoteName, quoted } from '../../src/format/quote-name.ts';

describe('names on a terminal', () => {
  it.each([
    ['plain.txt', 'plain.txt'],
    // nothing a terminal acts on: as it is, as git with core.quotePath=false
    ['dir/with space/é 日本.txt', 'dir/with space/é 日本.txt'],
    ['a\x1b[31mb', '"a\\033[31mb"'],
    ['tab\there', '"tab\\there"'],
    ['line\nbreak', '"line\\nbreak"'],
    ['\x07\b\v\f\r', '"\\a\\b\\v\\f\\r"'],
    ['nul\0', '"nul\\000"'],
    ['del\x7f', '"del\\177"'],
    ['c1\u0085\u009b', '"c1\\302\\205\\302\\233"'],
    ['ls\u2028ps\u2029', '"ls\\342\\200\\250ps\\342\\200\\251"'],
    ['\u202a\u202b\u202c\u202d\u202e', '"\\342\\200\\252\\342\\200\\253\\342\\200\\254\\342\\200\\255\\342\\200\\256"'],
    ['\u2066\u2067\u2068\u2069', '"\\342\\201\\246\\342\\201\\247\\342\\201\\250\\342\\201\\251"'],
    ['say "hi"', '"say \\"hi\\""'],
    ['back\\slash', '"back\\\\slash"'],
    // marks and spaces that reorder or act on nothing are left to the terminal
    ['\u200e\u00a0\ufeff', '\u200e\u00a0\ufeff'],
  ])('shows %p as %s', (name, shown) => {
    expect(quoteName(name)).toBe(shown);
  });

  it('quotes every name inside a sentence, needed or not', () => {
    expect(quoted('plain.txt')).toBe('"plain.txt"');
    expect(quoted('a\nb')).toBe('"a\\nb"');
  });

  it('escapes only what acts on a terminal in prose', () => {
    expect(escapeUnsafe('No file at /tmp/a\x1b[2K\nb.zip; "check" C:\\x')).toBe(
      'No file at /tmp/a\\033[2K\\nb.zip; "check" C:\\x',
    );
  });
});
