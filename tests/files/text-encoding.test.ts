import { describe, expect, it } from 'bun:test';
import { bomEncoding, decodeText, encodeText, TEXT_ENCODINGS } from '../../src/files/text-encoding.ts';
import { legacyCharacters, wholeCharacters } from '../../src/files/text-units.ts';

describe('text encodings', () => {
  const every = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

  it.each(['iso-8859-1', 'windows-1252'] as const)('%s decodes every byte and encodes it back the same', (encoding) => {
    const text = decodeText(every, encoding)!;
    expect(text.length).toBe(256);
    expect(encodeText(text, encoding)).toStrictEqual(every);
  });

  it('keeps ISO-8859-1 exact where WHATWG would read windows-1252', () => {
    expect(decodeText(Buffer.from([0x80, 0xe9]), 'iso-8859-1')).toBe('\u0080é');
    expect(decodeText(Buffer.from([0x80, 0xe9]), 'windows-1252')).toBe('€é');
  });

  /** Text each legacy code page holds (the others hold every character). */
  const SAMPLES: Partial<Record<(typeof TEXT_ENCODINGS)[number], string>> = {
    'iso-8859-1': 'Café',
    'windows-1252': 'Café',
    cp437: 'Café ½ ░',
    cp850: 'Café Ø ░',
    cp866: 'Привет, ёж ░',
    'windows-1250': 'Zażółć gęślą',
    'windows-1251': 'Привет, ёж',
    shift_jis: 'テスト、日本語ｶﾅ',
    gbk: '中文，简体',
    big5: '中文，繁體',
    'euc-kr': '한국어, 漢字',
  };

  it.each(TEXT_ENCODINGS)('%s round-trips text, a BOM as U+FEFF where it has one', (encoding) => {
    const text = SAMPLES[encoding] ?? '\uFEFFCafé 😀';
    const bytes = encodeText(text, encoding) as Buffer;
    expect(decodeText(bytes, encoding)).toBe(text);
    if (text.startsWith('\uFEFF')) expect(bomEncoding(bytes)).toBe(encoding);
  });

  it('names the first character an encoding cannot hold', () => {
    expect(encodeText('ab€', 'iso-8859-1')).toStrictEqual({ index: 2, char: '€' });
    expect(encodeText('a😀', 'windows-1252')).toStrictEqual({ index: 1, char: '😀' });
  });

  it('cuts multi-byte code pages between characters, counted from a character start', () => {
    const bytes = encodeText('aテb', 'shift_jis') as Buffer; // a, 0x83 0x65, b
    expect(legacyCharacters(bytes, 0, 2, 'shift_jis')).toStrictEqual({ from: 0, to: 1 });
    expect(legacyCharacters(bytes, 2, 2, 'shift_jis')).toStrictEqual({ from: 3, to: 4 });
    expect(legacyCharacters(bytes, 1, 1, 'shift_jis')).toStrictEqual({ from: 1, to: 3 }); // one whole character
  });

  it('cuts UTF-16 pages between code units and never inside a surrogate pair', () => {
    const bytes = encodeText('a😀b', 'utf-16le') as Buffer; // a, high, low, b: 8 bytes
    expect(wholeCharacters(bytes, 0, 4, 'utf-16le')).toStrictEqual({ from: 0, to: 2 });
    expect(wholeCharacters(bytes.subarray(1), 1, 7, 'utf-16le')).toStrictEqual({ from: 1, to: 7 });
    expect(wholeCharacters(bytes.subarray(4), 4, 4, 'utf-16le')).toStrictEqual({ from: 2, to: 4 });
    expect(wholeCharacters(bytes.subarray(2), 2, 1, 'utf-16le')).toStrictEqual({ from: 0, to: 4 });
  });
});
