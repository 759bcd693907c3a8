/**
 * grep never misses silently (issue 31): a search its time budget stops answers a cursor that
 * resumes where it stopped, every match on a line is its own item with a column, count_all counts
 * matches, and output files/count are grep -l and -c. Over MCP with the SDK's Client, on a lazy
 * session of 35,000 entries (read from the zip, never extracted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { strToU8, zipSync, type Zippable } from 'fflate';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';

const ENTRIES = 35_000;
let box: ReturnType<typeof sandbox>;
let mcp: Awaited<ReturnType<typeof connect>>;
/** Every 7th entry holds "needle" twice on one line: 2 matches per such file. */
const withNeedle = (i: number) => i % 7 === 0;
const expected = new Set<string>();

beforeAll(async () => {
  box = sandbox();
  const files: Zippable = {};
  for (let i = 0; i < ENTRIES; i++) {
    const name = `src/m${Math.floor(i / 1000)}/f${i}.txt`;
    files[name] = [strToU8(withNeedle(i) ? `a needle, b needle ${i}\nplain\n` : `plain ${i}\n`), { level: 0 }];
    if (withNeedle(i)) for (const column of [3, 13]) expected.add(`${name}:1:${column}`);
  }
  const zip = writeZip(box.dir, 'big.zip', zipSync(files));
  mcp = await connect(box.home);
  await call(mcp.client, 'zipfs_open', { path: zip, lazy: true });
}, 120_000);
afterAll(async () => {
  await mcp.close();
  box.cleanup();
});

describe('grep on a 35,000-entry lazy session', () => {
  it('pages through a tiny time budget with its cursor to every match, none missed or repeated', async () => {
    const seen: string[] = [];
    let cursor: string | undefined;
    let stoppedByBudget = 0;
    for (let calls = 0; calls < 200; calls++) {
      const args: Record<string, unknown> = { pattern: 'needle', max_results: 100_000, time_budget_ms: 100 };
      if (cursor) args.cursor = cursor;
      const answer = (await call(mcp.client, 'zipfs_grep', args)).data;
      expect(answer.error).toBeUndefined();
      for (const m of answer.matches) seen.push(`${m.file}:${m.line_number}:${m.column}`);
      if (answer.note?.includes('time budget')) stoppedByBudget++;
      expect(answer.note ?? '').not.toContain('regex engine gave up'); // a plain pattern is never blamed
      cursor = answer.next_cursor;
      if (!cursor) break;
    }
    expect(seen.length).toBe(expected.size);
    expect(new Set(seen)).toStrictEqual(expected);
    expect(stoppedByBudget).toBeGreaterThan(0); // the budget did stop it: the cursor was tested
  }, 300_000);

  it('counts matches, not lines, and answers files (-l) and counts (-c)', async () => {
    const counted = (await call(mcp.client, 'zipfs_grep', { pattern: 'needle', count_all: true, max_results: 1 })).data;
    expect(counted.total_matches).toBe(expected.size);
    const files = (
      await call(mcp.client, 'zipfs_grep', { pattern: 'needle', path: 'src/m0', output: 'files', max_results: 1000 })
    ).data;
    const inM0 = [...Array(1000).keys()].filter(withNeedle).map((i) => `src/m0/f${i}.txt`);
    expect(files.files.map((f: { file: string }) => f.file).sort()).toStrictEqual(inM0.sort());
    const counts = (
      await call(mcp.client, 'zipfs_grep', { pattern: 'needle', path: 'src/m0', output: 'count', max_results: 1000 })
    ).data;
    expect(counts.files.every((f: { count: number }) => f.count === 2)).toBe(true);
    expect(counts.files.length).toBe(inM0.length);
  }, 120_000);
});
