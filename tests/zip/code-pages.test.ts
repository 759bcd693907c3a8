/**
 * The legacy code pages (zip/code-pages.ts): every character each one maps comes back as the bytes it came from
 * (read, edit and a sync of names depend on it), what a page cannot hold is refused, CP437 and CP850 agree with
 * Python's tables, and the name survey (zip/name-survey.ts) names the page names were written in.
 */
import { describe, expect, it } from 'bun:test';
import { execFileSync } from 'node:child_process';
import {
  CODE_PAGES,
  decodeCodePage,
  encodeCodePage,
  isMultiByte,
  surveyNames,
  type CodePage,
} from '../../src/zip/index.ts';
import { decodeEntryText } from '../../src/zip/names.ts';
import { TEXT_ENCODINGS } from '../../src/files/text-encoding.ts';

/** Every byte sequence a page decodes to one character: single bytes, and lead/trail pairs of the multi-byte ones. */
function sequences(page: CodePage): Uint8Array[] {
  const all: Uint8Array[] = [];
  for (let byte = 0; byte < 256; byte++) all.push(Uint8Array.of(byte));
  if (isMultiByte(page))
    for (let lead = 0x81; lead <= 0xfe; lead++)
      for (let trail = 0x40; trail <= 0xfe; trail++) all.push(Uint8Array.of(lead, trail));
  return all.filter((bytes) => {
    const text = decodeCodePage(bytes, page);
    return text !== undefined && [...text].length === 1;
  });
}

describe('code pages', () => {
  it('are all offered for contents too', () => {
    for (const page of CODE_PAGES) expect(TEXT_ENCODINGS).toContain(page);
  });

  for (const page of CODE_PAGES)
    it(`${page}: every mapped character encodes to bytes that decode to it`, () => {
      let mapped = 0;
      for (const bytes of sequences(page)) {
        const char = decodeCodePage(bytes, page)!;
        const again = encodeCodePage(char, page);
        expect(Buffer.isBuffer(again)).toBe(true);
        expect(decodeCodePage(again as Buffer, page)).toBe(char);
        mapped++;
      }
      expect(mapped).toBeGreaterThan(isMultiByte(page) ? 7000 : 250);
    });

  it('single-byte pages give back every byte exactly', () => {
    const all = Uint8Array.from({ length: 256 }, (_, i) => i);
    for (const page of CODE_PAGES.filter((p) => !isMultiByte(p)))
      expect(encodeCodePage(decodeCodePage(all, page)!, page)).toStrictEqual(Buffer.from(all));
  });

  it("CP437 and CP850 are Python's tables", () => {
    for (const page of ['cp437', 'cp850'] as const) {
      const python = execFileSync('python3', ['-c', `print(bytes(range(256)).decode('${page}'), end='')`]);
      expect(
        decodeCodePage(
          Uint8Array.from({ length: 256 }, (_, i) => i),
          page,
        ),
      ).toBe(python.toString());
    }
  });

  it('writes the sequence a Windows tool writes where a page has two, and refuses what it lacks', () => {
    // U+2160 (Roman numeral one) is 0x8754 in NEC's row and 0xFA4A in IBM's: CP932 writes 0x8754.
    expect(encodeCodePage('Ⅰ', 'shift_jis')).toStrictEqual(Buffer.from([0x87, 0x54]));
    expect(encodeCodePage('a¥b', 'shift_jis')).toStrictEqual({ index: 1, char: '¥' });
    expect(encodeCodePage('x😀', 'gbk')).toStrictEqual({ index: 1, char: '😀' });
    expect(encodeCodePage('\ud800', 'cp866')).toStrictEqual({ index: 0, char: '\ud800' });
    expect(decodeCodePage(Uint8Array.of(0x82), 'shift_jis')).toBeUndefined(); // a lead byte without its trail
  });

  it('reads a name in the asked encoding only without the UTF-8 flag', () => {
    const bytes = encodeCodePage('Отчёт', 'cp866') as Buffer;
    expect(decodeEntryText(bytes, 0, 'cp866')).toBe('Отчёт');
    expect(decodeEntryText(bytes, 0, undefined)).not.toBe('Отчёт'); // CP437 by default
    const utf8 = Buffer.from('Отчёт');
    expect(decodeEntryText(utf8, 0x0800, 'cp866')).toBe('Отчёт');
  });
});

describe('the name survey', () => {
  const cases: [string, CodePage | 'utf-8', string[]][] = [
    ['Russian DOS', 'cp866', ['Отчёт за квартал.txt', 'Документы/Письмо.doc']],
    ['Russian Windows', 'windows-1251', ['Отчёт за квартал.txt', 'Документы/Письмо.doc']],
    ['Japanese', 'shift_jis', ['テスト/日本語のファイル.txt', '資料.txt']],
    ['Simplified Chinese', 'gbk', ['中文文件.txt', '报告/数据.csv', '简体中文名称.txt']],
    ['Traditional Chinese', 'big5', ['繁體中文.txt', '報告/資料.csv', '檔案名稱.txt']],
    ['Korean', 'euc-kr', ['한국어 파일.txt', '보고서/자료.csv']],
    ['Polish', 'windows-1250', ['Zażółć gęślą jaźń.txt', 'Łódź.txt']],
    ['German Windows', 'windows-1252', ['Größe.txt', 'Übersicht.doc']],
    ['German DOS', 'cp437', ['Größe.txt', 'Übersicht.doc']],
  ];
  for (const [what, page, names] of cases)
    it(`names ${page} for ${what} names`, () => {
      const bytes = names.map((name) =>
        page === 'utf-8' ? Buffer.from(name) : (encodeCodePage(name, page) as Buffer),
      );
      const survey = surveyNames(bytes)!;
      expect(survey.likely).toBe(page);
      expect(survey.example.likely).toBe(names[0]!);
    });

  it('takes names that are all UTF-8 as UTF-8', () => {
    const survey = surveyNames(['Größe.txt', 'Отчёт.txt'].map((name) => Buffer.from(name)))!;
    expect(survey).toMatchObject({ likely: 'utf-8', notUtf8: 0 });
  });

  it('prefers CP866 to UTF-8 for a short name that is valid UTF-8 by chance', () => {
    // "рив" in CP866 is E0 A8 A2: valid UTF-8 (a Gurmukhi letter)
    expect(surveyNames([encodeCodePage('рив.txt', 'cp866') as Buffer])!.likely).toBe('cp866');
  });
});
