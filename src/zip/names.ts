/**
 * Entry name and comment decoding. Flag bit 11 means UTF-8. Without it the
 * spec says CP437, but macOS and others write UTF-8 without the flag, so a
 * name that is valid UTF-8 is taken as UTF-8 (as Go, unzip, 7-Zip and bsdtar
 * do) and only the rest falls back to CP437.
 */

const CP437_HIGH =
  'ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒáíóúñÑªº¿⌐¬½¼¡«»░▒▓│┤╡╢╖╕╣║╗╝╜╛┐' +
  '└┴┬├─┼╞╟╚╔╩╦╠═╬╧╨╤╥╙╘╒╓╫╪┘┌█▄▌▐▀αßΓπΣσµτΦΘΩδ∞φε∩≡±≥≤⌠⌡÷≈°∙·√ⁿ²■\u00a0';

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
