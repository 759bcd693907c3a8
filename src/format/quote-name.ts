/**
 * Names as a terminal may show them. An entry or file name can hold characters
 * a terminal acts on instead of showing: an escape sequence recolours, erases
 * or moves the cursor (hiding a line, or faking one), a newline or U+2028
 * starts a line, and the bidirectional overrides and isolates reorder what
 * follows them. Such a name is shown as git shows a path: in double quotes,
 * with C escapes (`\t`, `\n`, `\"`, `\\`, and the UTF-8 bytes of any other
 * such character in octal: ESC is `\033`, U+202E `\342\200\256`), so nothing
 * in it acts and the exact name can be read back. Other characters, accented
 * or not Latin, are shown as they are (git's core.quotePath=false).
 */

/**
 * C0 controls, DEL, C1 controls, the line and paragraph separators, and the bidi embeddings, overrides and isolates.
 */
const UNSAFE = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
/**
 * A name holding any of these is quoted: the unsafe ones, and the quote and backslash, which the quoting itself uses.
 */
const NEEDS_QUOTES = new RegExp(`[${UNSAFE}"\\\\]`);
const QUOTED_CHARS = new RegExp(`[${UNSAFE}"\\\\]`, 'g');
const UNSAFE_CHARS = new RegExp(`[${UNSAFE}]`, 'g');

const SHORT_ESCAPES: Record<string, string> = {
  '\x07': '\\a',
  '\b': '\\b',
  '\t': '\\t',
  '\n': '\\n',
  '\v': '\\v',
  '\f': '\\f',
  '\r': '\\r',
  '"': '\\"',
  '\\': '\\\\',
};
const utf8 = new TextEncoder();

function escapeChar(char: string): string {
  return (
    SHORT_ESCAPES[char] ?? Array.from(utf8.encode(char), (byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('')
  );
}

/** `text` in double quotes with C escapes, whatever it holds: names inside a sentence (messages, notes). */
export function quoted(text: string): string {
  return `"${text.replace(QUOTED_CHARS, escapeChar)}"`;
}

/**
 * A name standing on its own (a listing, a table cell, a diff header): as it is, or quoted() when it needs to be, as
 * git does.
 */
export function quoteName(name: string): string {
  return NEEDS_QUOTES.test(name) ? quoted(name) : name;
}

/** Prose with every unsafe character escaped and nothing else changed: the last guard for a message
 * that may carry a path nobody quoted (a system error's text). */
export function escapeUnsafe(text: string): string {
  return text.replace(UNSAFE_CHARS, escapeChar);
}
