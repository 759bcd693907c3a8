/** Markdown pieces the README's generated blocks are made of. */

/** A cell's text with the characters a table cell cannot hold as they are escaped. */
export function cell(text: string): string {
  return text.replaceAll('|', '\\|').replaceAll('\n', ' ');
}

/** Inline code holding `text`, with fences long enough for the backticks inside it. */
export function code(text: string): string {
  const longest = Math.max(0, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${text} ${fence}` : `${fence}${text}${fence}`;
}

/** A table: a header row, its rule (`---:` for columns listed in `right`), then one row per line. */
export function table(headers: string[], rows: string[][], right: number[] = []): string {
  const rule = headers.map((_, i) => (right.includes(i) ? '---:' : '---'));
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(headers), line(rule), ...rows.map(line)].join('\n');
}
