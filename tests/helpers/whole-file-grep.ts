/**
 * grep's search of one file as it was before it streamed: the whole file read,
 * decoded in one piece and split into lines. The streaming search must give
 * exactly these results; the tests compare the two on the same bytes.
 */
import { streamDecoder } from '../../src/search/file-text.ts';
import { shortenAround as cut } from '../../src/files/shorten-diff-lines.ts';
import { looksBinary } from '../../src/files/text-or-binary.ts';
import { bomEncoding, bomLength, decodeText, type TextEncoding } from '../../src/files/text-encoding.ts';
import type { GrepMatch } from '../../src/search/grep-types.ts';

export interface WholeFileOptions {
  pattern: string;
  flags: string;
  contextLines: number;
  encoding: TextEncoding;
  binary: boolean;
}

function grepText(bytes: Buffer, asked: TextEncoding): string | undefined {
  const bom = bomEncoding(bytes);
  const encoding = bom ?? asked;
  if (!bom && !encoding.startsWith('utf-16') && looksBinary(bytes)) return undefined;
  const body = bytes.subarray(bom ? bomLength(bom) : 0);
  const decode = streamDecoder(encoding);
  return decodeText(body, encoding) ?? decode(body) + decode(undefined);
}

function binaryMatch(bytes: Buffer, regex: RegExp): { offset: number; text: string } | undefined {
  const latin1 = bytes.toString('latin1');
  const hit = regex.exec(latin1);
  if (!hit) return undefined;
  const printable = (at: number) => {
    const code = latin1.charCodeAt(at);
    return (code >= 0x20 && code < 0x7f) || code === 0x09;
  };
  let from = hit.index;
  while (from > 0 && hit.index - from < 200 && printable(from - 1)) from--;
  let to = hit.index + hit[0].length;
  while (to < latin1.length && to - hit.index < 200 && printable(to)) to++;
  const text = latin1
    .slice(from, to)
    .replace(/[^\x20-\x7e\t]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return { offset: hit.index, text };
}

/** Every match in `bytes` (no max_results), and whether the file was skipped as binary. */
export function wholeFileGrep(
  file: string,
  bytes: Uint8Array,
  options: WholeFileOptions,
): { matches: GrepMatch[]; skippedBinary: boolean } {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length);
  const regex = new RegExp(options.pattern, options.flags);
  const text = grepText(buffer, options.encoding);
  if (text === undefined) {
    if (!options.binary) return { matches: [], skippedBinary: true };
    const hit = binaryMatch(buffer, regex);
    return {
      matches: hit ? [{ file, line_number: 0, line_content: cut(hit.text), byte_offset: hit.offset }] : [],
      skippedBinary: false,
    };
  }
  const matches: GrepMatch[] = [];
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.endsWith('\r') ? lines[i]!.slice(0, -1) : lines[i]!;
    // Every match of the line; an empty one only when the line has no other (line-search.ts).
    const hits = [...line.matchAll(new RegExp(options.pattern, `${options.flags}g`))];
    const nonEmpty = hits.filter((hit) => hit[0] !== '');
    for (const hit of nonEmpty.length > 0 ? nonEmpty : hits.slice(0, 1)) {
      const match: GrepMatch = {
        file,
        line_number: i + 1,
        line_content: cut(line, hit.index),
        column: hit.index + 1,
      };
      if (options.contextLines > 0) {
        const strip = (l: string) => cut(l.endsWith('\r') ? l.slice(0, -1) : l);
        match.context_before = lines.slice(Math.max(0, i - options.contextLines), i).map(strip);
        match.context_after = lines.slice(i + 1, i + 1 + options.contextLines).map(strip);
      }
      matches.push(match);
    }
  }
  return { matches, skippedBinary: false };
}
