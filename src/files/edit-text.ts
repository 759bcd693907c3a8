/**
 * Targeted text edits, checked against what the caller read: each old_text
 * must match exactly once (or, with replace_all, at least once), in order,
 * each edit seeing the result of the ones before; any failure leaves the text
 * as it was. A file written with CRLF is matched and edited as LF and written
 * back with CRLF, so an agent's LF snippets match and line endings survive; a
 * missing final newline stays missing.
 *
 * With `regex`, old_text is a JavaScript regular expression with the m flag,
 * so ^ and $ anchor at each line (`^server\.port=8080$` must not match
 * `management.server.port=8080`), run over the LF text, and new_text may use
 * $1, $<name>, $& and $$ as String.prototype.replace reads them. The same
 * checks hold: it must match once, or with replace_all at least once. A
 * pattern can backtrack for ever: edit runs regex edits in a worker under a
 * time budget (edit-worker.ts).
 */
import { ZipfsError, quote } from '../base/errors.ts';
import { param } from '../base/message-marks.ts';
import { watchedExec } from '../base/regex-give-up.ts';

export interface TextEdit {
  old_text: string;
  new_text: string;
  replace_all?: boolean;
  regex?: boolean;
}

/** The pattern of a regex edit (flags g and m), or INVALID_INPUT with the engine's reason. */
export function compilePattern(source: string, which: string): RegExp {
  try {
    return new RegExp(source, 'gm');
  } catch (error) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `${which}: old_text is not a valid regular expression: ${(error as Error).message}. It is a JavaScript ` +
        `regular expression; escape special characters such as ( [ . * + ? with a backslash, or leave regex off to ` +
        `match the text exactly.`,
    );
  }
}

/** Checks every regex edit's pattern, before any work: a bad one is the caller's mistake, said at once. */
export function checkPatterns(edits: TextEdit[]): void {
  edits.forEach(
    (edit, i) =>
      edit.regex && compilePattern(edit.old_text, edits.length > 1 ? `Edit ${i + 1} of ${edits.length}` : 'The edit'),
  );
}

/**
 * How many times the pattern (flag g) matches, as matchAll counts them; LIMIT_EXCEEDED when the
 * engine gives up on the search for the next one (regex-give-up.ts), which it reports as "no more".
 */
function matchCount(text: string, pattern: RegExp, which: string, fileName: string): number {
  let count = 0;
  pattern.lastIndex = 0;
  for (;;) {
    const { hit, gaveUp } = watchedExec(pattern, text);
    if (gaveUp) {
      throw new ZipfsError(
        'LIMIT_EXCEEDED',
        `${which}: the regex engine gave up on the pattern in ${quote(fileName)} after backtracking too long (it ` +
          `backtracks catastrophically, as nested repeats like (x+x+)+ do), so whether it matches is unknown; ` +
          `nothing was written. Rewrite it without nested repeats (x{2,}y for (x+x+)+y).`,
      );
    }
    if (!hit) return count;
    count++;
    if (hit[0] === '') pattern.lastIndex++; // as matchAll steps past an empty match
  }
}

/** Whether every line break is CRLF (a mixed file is matched byte for byte instead). */
function usesCrlf(text: string): boolean {
  return text.includes('\r\n') && !/(^|[^\r])\n/.test(text);
}

function occurrences(text: string, needle: string): number {
  let count = 0;
  for (let at = text.indexOf(needle); at >= 0; at = text.indexOf(needle, at + needle.length)) count++;
  return count;
}

export function applyEdits(
  original: string,
  edits: TextEdit[],
  fileName: string,
  skipMissing = false,
): { text: string; replacements: number } {
  const crlf = usesCrlf(original);
  const lf = (s: string) => (crlf ? s.replaceAll('\r\n', '\n') : s);
  let text = lf(original);
  let replacements = 0;
  edits.forEach((edit, i) => {
    const which = edits.length > 1 ? `Edit ${i + 1} of ${edits.length}` : 'The edit';
    const needle = lf(edit.old_text);
    if (needle === '')
      throw new ZipfsError('INVALID_INPUT', `${which} has an empty old_text; give the exact text to replace.`);
    const pattern = edit.regex ? compilePattern(edit.old_text, which) : undefined;
    const found = pattern ? matchCount(text, pattern, which, fileName) : occurrences(text, needle);
    const what = pattern ? `the pattern ${quote(edit.old_text)}` : `old_text ${quote(edit.old_text)}`;
    if (found === 0 && skipMissing) return; // edit with several files: this one lacks it
    if (found === 0) {
      const hint = pattern
        ? 'Read the file again; ^ and $ anchor at each line, and lines end in \n (never \r\n) when the pattern runs.'
        : 'Read the file again and copy the text exactly, whitespace included.';
      throw new ZipfsError(
        'EDIT_MISMATCH',
        `${which}: ${what} ${pattern ? 'matches nothing' : 'is not'} in ` +
          `${quote(fileName)}${i > 0 ? ' (after the edits before it)' : ''}; nothing was written. ${hint}`,
      );
    }
    if (found > 1 && !edit.replace_all) {
      throw new ZipfsError(
        'EDIT_MISMATCH',
        `${which}: ${what} ${pattern ? 'matches' : 'is in'} ${quote(fileName)} ${found} times; nothing was ` +
          `written. ${pattern ? 'Make the pattern narrower' : 'Include more surrounding text'} so it matches once, ` +
          `or pass ${param('replace_all')} to replace every one.`,
      );
    }
    if (pattern) text = text.replace(edit.replace_all ? pattern : new RegExp(pattern.source, 'm'), lf(edit.new_text));
    else
      text = edit.replace_all
        ? text.replaceAll(needle, lf(edit.new_text))
        : text.replace(needle, () => lf(edit.new_text));
    replacements += edit.replace_all ? found : 1;
  });
  return { text: crlf ? text.replaceAll('\n', '\r\n') : text, replacements };
}
