/**
 * Targeted text edits, checked against what the caller read: each old_text
 * must match exactly once (or, with replace_all, at least once), in order,
 * each edit seeing the result of the ones before; any failure leaves the text
 * as it was. A file written with CRLF is matched and edited as LF and written
 * back with CRLF, so an agent's LF snippets match and line endings survive; a
 * missing final newline stays missing.
 */
import { ZipfsError, quote } from '../errors.ts';
import { param } from '../message-marks.ts';

export interface TextEdit {
  old_text: string;
  new_text: string;
  replace_all?: boolean;
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

export function applyEdits(original: string, edits: TextEdit[], fileName: string): { text: string; replacements: number } {
  const crlf = usesCrlf(original);
  const lf = (s: string) => (crlf ? s.replaceAll('\r\n', '\n') : s);
  let text = lf(original);
  let replacements = 0;
  edits.forEach((edit, i) => {
    const which = edits.length > 1 ? `Edit ${i + 1} of ${edits.length}` : 'The edit';
    const needle = lf(edit.old_text);
    if (needle === '') throw new ZipfsError('INVALID_INPUT', `${which} has an empty old_text; give the exact text to replace.`);
    const found = occurrences(text, needle);
    if (found === 0) {
      throw new ZipfsError('EDIT_MISMATCH', `${which}: old_text ${quote(edit.old_text)} is not in ${quote(fileName)}${i > 0 ? ' (after the edits before it)' : ''}; nothing was written. Read the file again and copy the text exactly, whitespace included.`);
    }
    if (found > 1 && !edit.replace_all) {
      throw new ZipfsError('EDIT_MISMATCH', `${which}: old_text ${quote(edit.old_text)} is in ${quote(fileName)} ${found} times; nothing was written. Include more surrounding text so it matches once, or pass ${param('replace_all')} to replace every one.`);
    }
    text = edit.replace_all ? text.replaceAll(needle, lf(edit.new_text)) : text.replace(needle, () => lf(edit.new_text));
    replacements += edit.replace_all ? found : 1;
  });
  return { text: crlf ? text.replaceAll('\n', '\r\n') : text, replacements };
}
