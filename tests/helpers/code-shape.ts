/**
 * The shape rules of the code (issue 29, point 6): no line over 120 characters, no file of src/ over 300 lines.
 * Biome formats at 120 columns but cannot break a long string, template or comment, so this check catches those.
 */
import fs from 'node:fs';
import path from 'node:path';

export const MAX_COLUMNS = 120;
export const MAX_FILE_LINES = 300;

/** The lines of a text, as an editor numbers them: a final newline ends the last line, it does not start one. */
function linesOf(text: string): string[] {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** "file:line (N characters)" for each line of `text` over `max` characters (code points, as an editor counts). */
export function longLines(file: string, text: string, max = MAX_COLUMNS): string[] {
  return linesOf(text).flatMap((line, i) => {
    const width = [...line].length;
    return width > max ? [`${file}:${i + 1} (${width} characters)`] : [];
  });
}

/** "file (N lines)" when `text` has more than `max` lines, else nothing. */
export function longFile(file: string, text: string, max = MAX_FILE_LINES): string[] {
  const count = linesOf(text).length;
  return count > max ? [`${file} (${count} lines)`] : [];
}

/** The .ts and .mjs files under `dir` (relative to `root`, with "/"), skipping node_modules. */
export function sourceFiles(root: string, dir: string): string[] {
  const found: string[] = [];
  const walk = (relative: string) => {
    for (const entry of fs.readdirSync(path.join(root, relative), { withFileTypes: true })) {
      const child = `${relative}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules') walk(child);
      } else if (entry.isFile() && /\.(ts|mjs)$/.test(entry.name)) found.push(child);
    }
  };
  walk(dir);
  return found.sort();
}
