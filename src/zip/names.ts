/**
 * Entry name and comment decoding. Flag bit 11 means UTF-8. Without it the
 * spec says CP437, but macOS and others write UTF-8 without the flag, so a
 * name that is valid UTF-8 is taken as UTF-8 (as Go, unzip, 7-Zip and bsdtar
 * do) and only the rest falls back to CP437. A session opened with a name
 * encoding (a Russian or Japanese Windows tool's code page: code-pages.ts)
 * reads every name without the flag in that encoding instead.
 */
import { CP437_HIGH, decodeCodePage, type CodePage } from './code-pages.ts';
import { FLAG_UTF8 } from './constants.ts';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

export function decodeCp437(bytes: Uint8Array): string {
  let out = '';
  for (const byte of bytes) out += byte < 0x80 ? String.fromCharCode(byte) : CP437_HIGH[byte - 0x80];
  return out;
}

/** Returns the text if `bytes` are valid UTF-8, else undefined. */
export function tryDecodeUtf8(bytes: Uint8Array): string | undefined {
  try {
    return strictUtf8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** Decodes a name or comment. The UTF-8 flag needs no branch of its own: flagged
 * bytes that are not UTF-8 are a writer bug, and CP437 at least keeps every byte visible. */
export function decodeZipText(bytes: Uint8Array): string {
  return tryDecodeUtf8(bytes) ?? decodeCp437(bytes);
}

/** Whether every byte is ASCII: such a name reads the same in every encoding zip uses. */
export function isAscii(bytes: Uint8Array): boolean {
  for (const byte of bytes) if (byte >= 0x80) return false;
  return true;
}

/**
 * A name or comment of an entry with general-purpose flags `flags`: in `encoding` when one was asked for and the flag
 * does not say UTF-8 (bytes not valid in it fall back as decodeZipText does), else as decodeZipText.
 */
export function decodeEntryText(bytes: Uint8Array, flags: number, encoding: CodePage | undefined): string {
  if (encoding === undefined || (flags & FLAG_UTF8) !== 0 || isAscii(bytes)) return decodeZipText(bytes);
  return decodeCodePage(bytes, encoding) ?? decodeZipText(bytes);
}
