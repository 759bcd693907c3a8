/**
 * Every answer fits an agent's context: over MCP no tool result is over 100,000 characters (its
 * JSON as the client receives it: structuredContent plus the text block), a long result says what
 * it left out (total, next_offset), and following next_offset to the end gives every item exactly
 * once. The CLI gives whole results by default and pages the same way with --offset and --limit.
 * One large session serves every test: 8,000 files, a 2 MB log, and 5,000 changed paths.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { strToU8, zipSync, type Zippable } from 'fflate';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { MTIME, binaryBytes } from '../helpers/fixtures.ts';
import { connect } from '../helpers/mcp-client.ts';

const BOUND = 100_000;
/** A hang guard for tests that walk thousands of files page after page. */
const LONG = 120_000;
const pad = (n: number, width: number) => String(n).padStart(width, '0');
const LOG_LINES = 46_000;
const logLine = (i: number) => `2025-01-30T12:00:00Z INFO request ${pad(i, 6)} served ok\n`;
const WIDE = `{"items":[${Array.from({ length: 20_000 }, (_, i) => i).join(',')}]}`; // one line of about 110 KB

let box: ReturnType<typeof sandbox>;
let zip: string;
let root: string;
let mcp: Awaited<ReturnType<typeof connect>>;
let largest = { chars: 0, tool: '' };

beforeAll(async () => {
  box = sandbox();
  const tree: Zippable = {
    'big.log': strToU8(Array.from({ length: LOG_LINES }, (_, i) => logLine(i)).join('')),
    'wide.json': strToU8(`${WIDE}\n`),
  };
  for (let d = 0; d < 80; d++) {
    const folder: Zippable = {};
    for (let f = 0; f < 100; f++)
      folder[`f${pad(f, 3)}.txt`] = strToU8(`first line of d${pad(d, 2)}/f${pad(f, 3)}\nsecond line\nthird line\n`);
    tree[`d${pad(d, 2)}`] = folder;
  }
  zip = writeZip(box.dir, 'big.zip', zipSync(tree, { mtime: MTIME, level: 1 }));
  root = box.run(['open', zip, '--json']).json.workspace_path;
  // 5,000 changed paths: 3,000 modified, 1,500 added (and their folder), 500 deleted; and a long line changed in its
  // middle.
  for (let d = 0; d < 30; d++)
    for (let f = 0; f < 100; f++)
      fs.appendFileSync(path.join(root, `d${pad(d, 2)}/f${pad(f, 3)}.txt`), 'a fourth line\n');
  fs.mkdirSync(path.join(root, 'new'));
  for (let n = 0; n < 1500; n++) fs.writeFileSync(path.join(root, `new/n${pad(n, 4)}.txt`), `first line of new ${n}\n`);
  for (let d = 75; d < 80; d++)
    for (let f = 0; f < 100; f++) fs.rmSync(path.join(root, `d${pad(d, 2)}/f${pad(f, 3)}.txt`));
  fs.writeFileSync(path.join(root, 'wide.json'), `${WIDE.replace(',10000,', ',TEN_THOUSAND,')}\n`);
  fs.writeFileSync(path.join(root, 'blob.bin'), binaryBytes(400_000));
  mcp = await connect(box.home);
}, 120_000);

afterAll(async () => {
  await mcp?.close();
  box?.cleanup();
  // The figure issue 21 asks for: the largest answer any tool gave here.
  console.log(`largest MCP answer in paging tests: ${largest.chars} characters (${largest.tool})`);
});

/** One MCP call, its result measured as the client received it. */
async function answer(tool: string, args: Record<string, unknown>): Promise<any> {
  const result = await mcp.client.callTool({ name: tool, arguments: args });
  expect(result.isError).toBeFalsy();
  const chars = JSON.stringify(result).length;
  if (chars > largest.chars) largest = { chars, tool };
  expect(chars).toBeLessThanOrEqual(BOUND);
  return result.structuredContent;
}

/** Follows next_offset from the first page to the last, checking each page says what is left. */
async function follow(
  fetch: (offset: number | undefined) => Promise<any> | any,
  left: (page: any) => number,
): Promise<any[]> {
  const pages = [];
  let offset: number | undefined;
  for (;;) {
    const page = await fetch(offset);
    pages.push(page);
    if (page.next_offset === undefined) return pages;
    expect(page.next_offset).toBeGreaterThan(offset ?? 0);
    expect(left(page)).toBeGreaterThan(0); // what was left out is said, not only that something was
    offset = page.next_offset;
  }
}

const mcpPages = (
  tool: string,
  args: Record<string, unknown>,
  left: (page: any) => number = (p) => p.total - p.next_offset,
) => follow((offset) => answer(tool, offset === undefined ? args : { ...args, offset }), left);
const cliPages = (args: string[], limit: number, left: (page: any) => number = (p) => p.total - p.next_offset) =>
  follow((offset) => {
    const run = box.run([
      ...args,
      '--limit',
      String(limit),
      ...(offset === undefined ? [] : ['--offset', String(offset)]),
      '--json',
    ]);
    expect(run.code).toBe(0);
    return run.json;
  }, left);

/** Each item exactly once, in the order the whole answer gives them. */
function expectSame(paged: unknown[], whole: unknown[]): void {
  expect(paged.length).toBe(whole.length);
  expect(paged).toStrictEqual(whole);
}

describe('ls and tree of 8,000 files', () => {
  it(
    'ls -r: whole on the CLI, in bounded pages over MCP and with --limit, every entry once',
    async () => {
      const whole = box.run(['ls', '-r', '--json']).json;
      expect(whole.entries.length).toBeGreaterThan(9_000);
      // a whole answer reads as before paging
      expect([whole.total, whole.next_offset]).toStrictEqual([undefined, undefined]);
      const names = (pages: any[]) => pages.flatMap((p) => p.entries.map((e: any) => e.name));
      const overMcp = await mcpPages('zipfs_ls', { recursive: true });
      expect(overMcp.length).toBeGreaterThan(5);
      expectSame(
        names(overMcp),
        whole.entries.map((e: any) => e.name),
      );
      expectSame(
        names(await cliPages(['ls', '-r'], 4_000)),
        whole.entries.map((e: any) => e.name),
      );
    },
    LONG,
  );

  it(
    'ls says on stderr how many were left and the flag that continues',
    () => {
      const human = box.run(['ls', '-r', '--limit', '10']);
      expect(human.stdout.trim().split('\n')).toHaveLength(10);
      expect(human.stderr).toMatch(/zipfs: \d+ more entries of \d+; continue with --offset 10/);
    },
    LONG,
  );

  it(
    'tree: pages of the drawing join into the whole drawing',
    async () => {
      const whole = box.run(['tree', '--json']).json;
      const overMcp = await mcpPages('zipfs_tree', {});
      for (const page of overMcp) expect(page.total).toBe(whole.tree.split('\n').length);
      expect(overMcp.length).toBeGreaterThan(2);
      for (const page of overMcp)
        expect([page.file_count, page.dir_count]).toStrictEqual([whole.file_count, whole.dir_count]);
      expect(overMcp.map((p) => p.tree).join('\n')).toBe(whole.tree);
      expect((await cliPages(['tree'], 3_000)).map((p) => p.tree).join('\n')).toBe(whole.tree);
      expect(box.run(['tree', '--limit', '5']).stderr).toContain('continue with --offset 5');
    },
    LONG,
  );
});

describe('grep, inspect and read', () => {
  it(
    'grep pages its matches with offset: every match once',
    async () => {
      const whole = box.run(['grep', '^first', '--max-results', '100000', '--json']).json;
      expect(whole.matches.length).toBe(9_000);
      const key = (m: any) => `${m.file}:${m.line_number}`;
      const overMcp = await mcpPages(
        'zipfs_grep',
        { pattern: '^first', max_results: 100_000 },
        (p) => p.total_matches - p.next_offset,
      );
      expect(overMcp.length).toBeGreaterThan(3);
      expect(overMcp.at(-1).truncated).toBe(false);
      expectSame(
        overMcp.flatMap((p) => p.matches.map(key)),
        whole.matches.map(key),
      );
      // The default page of 100 continues the same way, on both surfaces.
      const first = await answer('zipfs_grep', { pattern: '^first' });
      expect([first.matches.length, first.truncated, first.next_offset]).toStrictEqual([100, true, 100]);
      const second = box.run(['grep', '^first', '--offset', '100', '--json']).json;
      expect(second.matches.map(key)).toStrictEqual(whole.matches.slice(100, 200).map(key));
      expect(box.run(['grep', '^first']).stderr).toContain('continue with --offset 100');
    },
    LONG,
  );

  it(
    'grep shortens a long line around its match',
    async () => {
      const found = await answer('zipfs_grep', { pattern: 'TEN_THOUSAND' });
      expect(found.matches[0].line_content.length).toBeLessThan(600);
      expect(found.matches[0].line_content).toContain('TEN_THOUSAND');
    },
    LONG,
  );

  it(
    'inspect pages its entries with offset and limit (start and max_entries still work)',
    async () => {
      const whole = box.run(['inspect', zip, '--limit', '100000', '--json']).json;
      expect(whole.entries.length).toBe(whole.total_entries);
      const overMcp = await mcpPages(
        'zipfs_inspect',
        { path: zip, limit: 100_000 },
        (p) => p.total_entries - p.next_offset,
      );
      expect(overMcp.length).toBeGreaterThan(3);
      expectSame(
        overMcp.flatMap((p) => p.entries.map((e: any) => e.name)),
        whole.entries.map((e: any) => e.name),
      );
      const old = box.run(['inspect', zip, '--start', '10', '--max-entries', '5', '--json']).json;
      expect([old.entries.map((e: any) => e.name), old.next_offset]).toStrictEqual([
        whole.entries.slice(10, 15).map((e: any) => e.name),
        15,
      ]);
    },
    LONG,
  );

  it(
    'read without a range gives what fits, and next_offset reads the rest exactly',
    async () => {
      const log = fs.readFileSync(path.join(root, 'big.log'), 'utf8');
      const pages = await mcpPages('zipfs_read', { path: 'big.log' }, (p) => p.remaining_bytes);
      expect(pages.length).toBeGreaterThan(10);
      expect(pages.map((p) => p.content).join('')).toBe(log);
      const blob = await answer('zipfs_read', { path: 'blob.bin' });
      expect([blob.encoding, blob.next_offset]).toStrictEqual(['base64', blob.bytes_read]);
    },
    LONG,
  );

  it(
    'read by lines continues with next_start_line',
    async () => {
      const pages: any[] = [];
      for (let start = 1; ; ) {
        const page = await answer('zipfs_read', { path: 'big.log', start_line: start });
        pages.push(page);
        if (page.next_start_line === undefined) break;
        expect(page.next_start_line).toBe(page.end_line + 1);
        start = page.next_start_line;
      }
      expect(pages.length).toBeGreaterThan(10);
      expect(pages.map((p) => p.content).join('')).toBe(fs.readFileSync(path.join(root, 'big.log'), 'utf8'));
    },
    LONG,
  );

  it(
    'read by lines refuses one line longer than an answer, and says to read it by bytes',
    async () => {
      const result = await mcp.client.callTool({ name: 'zipfs_read', arguments: { path: 'wide.json', start_line: 1 } });
      expect(result.isError).toBe(true);
      const error = JSON.parse((result.content as { text: string }[])[0]!.text).error;
      expect([error.code, error.message]).toStrictEqual([
        'INVALID_INPUT',
        expect.stringContaining('read it by bytes from offset: 0'),
      ]);
      const bytes = await answer('zipfs_read', { path: 'wide.json', offset: 0 });
      expect(bytes.next_offset).toBe(bytes.bytes_read);
      expect(box.run(['read', 'wide.json', '--start-line', '1', '--json']).json.content).toBe(
        fs.readFileSync(path.join(root, 'wide.json'), 'utf8'),
      ); // the CLI has no bound
    },
    LONG,
  );
});

describe('edit, status and diff of a large change', () => {
  it(
    'edit of 46,000 replacements in a 2 MB log: a bounded diff over MCP, whole on the CLI, or none',
    async () => {
      const edits = [{ old_text: 'served ok', new_text: 'served OK', replace_all: true }];
      const overMcp = await answer('zipfs_edit', { path: 'big.log', edits, dry_run: true });
      expect([overMcp.replacements, overMcp.truncated]).toStrictEqual([LOG_LINES, true]);
      const shown = overMcp.diff.split('\n').length - 1;
      expect(overMcp.total).toBeGreaterThan(shown);
      const cli = box.run([
        'edit',
        'big.log',
        '--old',
        'served ok',
        '--new',
        'served OK',
        '--replace-all',
        '--dry-run',
        '--json',
      ]).json;
      expect([cli.truncated, cli.diff.split('\n').length - 1]).toStrictEqual([undefined, overMcp.total]);
      expect(cli.diff.startsWith(overMcp.diff)).toBe(true);
      const without = await answer('zipfs_edit', { path: 'big.log', edits, dry_run: true, diff: false });
      expect([without.diff, without.replacements]).toStrictEqual(['', LOG_LINES]);
      expect(
        box.run([
          'edit',
          'big.log',
          '--old',
          'served ok',
          '--new',
          'served OK',
          '--replace-all',
          '--dry-run',
          '--no-diff',
          '--json',
        ]).json.diff,
      ).toBe('');
    },
    LONG,
  );

  it(
    'status of 5,000 changed paths pages its three lists: every path once',
    async () => {
      const whole = box.run(['status', '--json']).json;
      const all = (p: any) => [
        ...p.modified.map((x: string) => `M ${x}`),
        ...p.added.map((x: string) => `A ${x}`),
        ...p.deleted.map((x: string) => `D ${x}`),
      ];
      expect(all(whole).length).toBeGreaterThan(5_000);
      const overMcp = await mcpPages('zipfs_status', {});
      expect(overMcp.length).toBeGreaterThan(1);
      for (const page of overMcp)
        expect([page.total, page.unchanged_count]).toStrictEqual([all(whole).length, whole.unchanged_count]);
      expectSame(overMcp.flatMap(all), all(whole));
      expectSame((await cliPages(['status'], 2_000)).flatMap(all), all(whole));
      const paged = box.run(['status', '--limit', '3', '--exit-code']);
      expect(paged.code).toBe(1);
      expect(paged.stderr).toContain('continue with --offset 3');
    },
    LONG,
  );

  it(
    'diff of thousands of files pages files and lines: joined, the pages are the whole diff',
    async () => {
      const whole = box.run(['diff', '--json']).json;
      expect(whole.files.length).toBeGreaterThan(5_000);
      expect(whole.truncated).toBe(false);
      const overMcp = await mcpPages('zipfs_diff', {});
      expect(overMcp.length).toBeGreaterThan(5);
      expectSame(
        overMcp.flatMap((p) => p.files),
        whole.files,
      );
      expect(overMcp.map((p) => p.diff).join('')).toBe(whole.diff);
      const cli = await cliPages(['diff'], 20_000);
      expectSame(
        cli.flatMap((p) => p.files),
        whole.files,
      );
      expect(cli.map((p) => p.diff).join('')).toBe(whole.diff);
      expect(box.run(['diff', '--limit', '4']).stderr).toContain('continue with --offset 4');
    },
    LONG,
  );

  it(
    'diff shortens a long changed line around the change',
    async () => {
      const wide = await answer('zipfs_diff', { path: 'wide.json' });
      const changed = wide.diff.split('\n').filter((line: string) => /^[-+]\{/.test(line) || /^[-+]…/.test(line));
      expect(changed).toHaveLength(2);
      for (const line of changed) expect(line.length).toBeLessThan(600);
      expect(changed[0]).toMatch(/^-…\[\d+ chars\] .*,10000,.* …\[\d+ more chars\]$/);
      expect(changed[1]).toContain(',TEN_THOUSAND,');
    },
    LONG,
  );
});

describe('tools/list', () => {
  it(
    'stays under 21,200 bytes as the client receives it',
    async () => {
      const { tools } = await mcp.client.listTools();
      expect(Buffer.byteLength(JSON.stringify({ tools }))).toBeLessThan(21_200);
    },
    LONG,
  );
});
