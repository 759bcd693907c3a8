/**
 * Which encoding an archive's names without the UTF-8 flag are most likely
 * in, for open and inspect's warning (zipfs never renames on a guess: it
 * warns, and the caller passes name_encoding).
 *
 * Each candidate (UTF-8 when every such name is valid UTF-8, and each code
 * page that decodes them all) reads every name, and each non-ASCII character
 * scores by what it is, weighted by the bytes it took:
 *  - a letter of the script most of the name's letters are in: +2 (a
 *    right guess reads a name in one script; a wrong one mixes Latin, Greek
 *    and Cyrillic, as Russian names read as CP437 do); a letter of another
 *    script: +0.5; Cyrillic outside the Russian alphabet and letters of
 *    scripts no code page here holds count half, hangul +2.25 (letterWeight);
 *  - box drawing, blocks, math and arrows (CP437's and CP866's upper half,
 *    which no one names files with): -3; controls, private use and U+FFFD: -4;
 *    half-width katakana (Shift_JIS's reading of single-byte pages): -1; other
 *    punctuation and symbols: -1;
 *  - a CJK character next to an ASCII letter ("Gr猿e", a Latin name read as
 *    pairs): +0.5 only;
 *  - a multi-byte pair in its code page's common area (GB2312's first-level
 *    hanzi, Big5's frequent hanzi, Shift_JIS's kana and first-level kanji,
 *    EUC-KR's hangul): +1 per pair, since the four CJK pages often all
 *    decode the same bytes, but only one reads them as common characters;
 *  - valid UTF-8: +0.5 per byte (its sequences rarely occur by chance); names
 *    that are all valid UTF-8 and hold SURELY_UTF8 non-ASCII bytes are UTF-8.
 * The highest total wins; a tie goes to UTF-8, then CP437 (what zipfs reads
 * names in without a choice), then the more common pages (TIE_ORDER).
 */
import { CODE_PAGES, decodeCodePage, isMultiByte, type CodePage, type MultiByteCodePage } from './code-pages.ts';
import { FLAG_UTF8 } from './constants.ts';
import { parseExtraFields, unicodePath } from './extra-fields.ts';
import { decodeZipText, isAscii, tryDecodeUtf8 } from './names.ts';

/** What the survey reads of an entry. */
export interface NameSample {
  rawName: Uint8Array;
  flags: number;
  rawExtra: Uint8Array;
}

export interface NameSurvey {
  /** Names without the UTF-8 flag (or a Unicode Path field) that are not ASCII: the ones an encoding changes. */
  legacy: number;
  /** Of those, the ones that are not valid UTF-8 (read as CP437 unless an encoding is chosen). */
  notUtf8: number;
  /** The encoding that reads them best. */
  likely: CodePage | 'utf-8';
  /** The first such name as read without a choice, and as `likely` reads it. */
  example: { now: string; likely: string };
}

/** The candidates, in the order a tie goes. */
const TIE_ORDER: readonly (CodePage | 'utf-8')[] = [
  'utf-8',
  'cp437',
  'cp850',
  'windows-1252',
  'cp866',
  'windows-1251',
  'windows-1250',
  'shift_jis',
  'gbk',
  'big5',
  'euc-kr',
];
if (TIE_ORDER.length !== CODE_PAGES.length + 1) throw new Error('a code page missing from TIE_ORDER');

/** Non-ASCII bytes past which names that are all valid UTF-8 are UTF-8: other pages' bytes so seldom are. */
const SURELY_UTF8 = 8;

/** Names surveyed at most: enough to tell, cheap on an archive of a million entries. */
const MAX_NAMES = 2000;

/** The bytes of names an encoding would change, at most MAX_NAMES of them. */
export function legacyNames(samples: Iterable<NameSample>): Uint8Array[] {
  const names: Uint8Array[] = [];
  for (const sample of samples) {
    if ((sample.flags & FLAG_UTF8) !== 0 || isAscii(sample.rawName)) continue;
    if (sample.rawExtra.length > 0 && unicodePath(parseExtraFields(sample.rawExtra), sample.rawName) !== undefined)
      continue;
    names.push(sample.rawName);
    if (names.length >= MAX_NAMES) break;
  }
  return names;
}

/** The survey of `names` (legacyNames), or undefined when there is none. */
export function surveyNames(names: Uint8Array[]): NameSurvey | undefined {
  if (names.length === 0) return undefined;
  const notUtf8 = names.filter((name) => tryDecodeUtf8(name) === undefined).length;
  const highBytes = names.reduce((sum, name) => sum + name.filter((byte) => byte >= 0x80).length, 0);
  const candidates = notUtf8 === 0 ? TIE_ORDER : TIE_ORDER.slice(1);
  let best: { page: CodePage | 'utf-8'; score: number } | undefined;
  for (const page of notUtf8 === 0 && highBytes >= SURELY_UTF8 ? ['utf-8' as const] : candidates) {
    const read = names.map((name) => (page === 'utf-8' ? tryDecodeUtf8(name) : decodeCodePage(name, page)));
    if (read.some((text) => text === undefined)) continue;
    const score = scoreReading(names, read as string[], page);
    if (!best || score > best.score) best = { page, score };
  }
  const likely = best?.page ?? 'cp437';
  const first = names[0]!;
  const example = {
    now: decodeZipText(first),
    likely: likely === 'utf-8' ? tryDecodeUtf8(first)! : decodeCodePage(first, likely)!,
  };
  return { legacy: names.length, notUtf8, likely, example };
}

type Script = 'latin' | 'greek' | 'cyrillic' | 'cjk' | 'other';

function scriptOf(code: number): Script | undefined {
  if (!LETTER.test(String.fromCodePoint(code))) return undefined;
  if (code >= 0xc0 && code <= 0x24f) return 'latin';
  if (code >= 0x370 && code <= 0x3ff) return 'greek';
  if (code >= 0x400 && code <= 0x4ff) return 'cyrillic';
  if ((code >= 0x3040 && code <= 0x30ff) || (code >= 0x3130 && code <= 0x318f) || (code >= 0x3400 && code <= 0x9fff))
    return 'cjk';
  if ((code >= 0xac00 && code <= 0xd7af) || (code >= 0xf900 && code <= 0xfaff) || code >= 0x20000) return 'cjk';
  return code >= 0xff61 && code <= 0xff9f ? undefined : 'other'; // half-width katakana: scored as a symbol
}

const LETTER = /^\p{L}$/u;
const ASCII_LETTER = /^[A-Za-z]$/;

/** A letter of the dominant script: Cyrillic outside the Russian alphabet and scripts no code page here holds count
 * less; hangul a little more (EUC-KR's hangul and GB2312's hanzi share bytes, and a Korean name is mostly hangul). */
function letterWeight(script: Script, code: number): number {
  if (script === 'cyrillic') return code >= 0x410 && code <= 0x44f ? 2 : 1;
  if (script === 'other') return 1;
  return script === 'cjk' && code >= 0xac00 && code <= 0xd7af ? 2.25 : 2;
}

function symbolWeight(code: number): number {
  if (code <= 0x9f || code === 0xfffd || (code >= 0xe000 && code <= 0xf8ff)) return -4;
  if ((code >= 0x2190 && code <= 0x23ff) || (code >= 0x2500 && code <= 0x25ff)) return -3;
  if (code >= 0x3000 && code <= 0x303f) return 1; // CJK punctuation
  if (code >= 0xff01 && code <= 0xff5e) return 1; // full-width forms
  return -1;
}

function scoreReading(names: Uint8Array[], read: string[], page: CodePage | 'utf-8'): number {
  let score = 0;
  read.forEach((text, i) => {
    const all = [...text];
    const high = all.flatMap((char, k) => (char.charCodeAt(0) >= 0x80 ? [k] : []));
    const scripts = high.map((k) => scriptOf(all[k]!.codePointAt(0)!));
    const counts = new Map<Script, number>();
    for (const script of scripts) if (script) counts.set(script, (counts.get(script) ?? 0) + 1);
    const dominant = [...counts].sort((a, b) => b[1] - a[1])[0]?.[0];
    let sum = 0;
    high.forEach((k, n) => {
      const code = all[k]!.codePointAt(0)!;
      const script = scripts[n];
      // A CJK character inside a word of ASCII letters ("Gr猿e") is a Latin letter read as the half of a pair.
      const inWord = script === 'cjk' && (ASCII_LETTER.test(all[k - 1] ?? '') || ASCII_LETTER.test(all[k + 1] ?? ''));
      sum += !script ? symbolWeight(code) : script !== dominant || inWord ? 0.5 : letterWeight(script, code);
    });
    const bytes = names[i]!.filter((byte) => byte >= 0x80).length;
    score += high.length > 0 ? (sum * bytes) / high.length : 0;
    if (page === 'utf-8') score += bytes / 2;
    else if (isMultiByte(page)) score += commonPairBytes(names[i]!, page) / 2;
  });
  return score;
}

/** Bytes of `name` in pairs of `page`'s common area (a valid name: leads and trails are where the page has them). */
function commonPairBytes(name: Uint8Array, page: MultiByteCodePage): number {
  let count = 0;
  for (let at = 0; at < name.length; at++) {
    const lead = name[at]!;
    const isLead = page === 'shift_jis' ? (lead >= 0x81 && lead <= 0x9f) || lead >= 0xe0 : lead >= 0x81;
    if (!isLead || at + 1 >= name.length) continue;
    const trail = name[++at]!;
    if (page === 'gbk' && trail >= 0x30 && trail <= 0x39) at += 2; // a four-byte GB18030 sequence
    if (common(page, lead, trail)) count += 2;
  }
  return count;
}

function common(page: MultiByteCodePage, lead: number, trail: number): boolean {
  if (page === 'gbk') return lead >= 0xb0 && lead <= 0xd7 && trail >= 0xa1;
  if (page === 'big5') return lead >= 0xa4 && lead <= 0xc6;
  if (page === 'shift_jis') return lead === 0x82 || lead === 0x83 || (lead >= 0x88 && lead <= 0x98);
  return lead >= 0xb0 && lead <= 0xc8 && trail >= 0xa1; // euc-kr
}
