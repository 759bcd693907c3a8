/**
 * `diff --stat` pages by files (issue 28, item 17): its limit counts files,
 * not diff lines, and the summary counts every changed file, with the rest
 * said as files ("7 more files of 10"). `stat: true` over MCP is the same.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawZip } from '../helpers/raw-zip.ts';

let box: ReturnType<typeof sandbox>;
beforeAll(() => {
  box = sandbox();
  const zip = writeZip(
    box.dir,
    'app.zip',
    rawZip(Array.from({ length: 10 }, (_, i) => ({ name: `f${i}.txt`, data: 'one\ntwo\nthree\n' }))),
  );
  const root = box.run(['open', zip, '--json']).json.workspace_path;
  for (let i = 0; i < 10; i++) fs.writeFileSync(path.join(root, `f${i}.txt`), 'one\nTWO\nthree\nfour\n');
});
afterAll(() => box.cleanup());

describe('diff --stat --limit', () => {
  it('counts files, and the summary counts them all', () => {
    const shown = box.run(['diff', '--stat', '--limit', '3']);
    expect(shown.stdout).toBe('M f0.txt  +2 -1\nM f1.txt  +2 -1\nM f2.txt  +2 -1\n10 files changed\n');
    expect(shown.stderr).toBe('zipfs: 7 more files of 10; continue with --offset 3\n');
    const json = box.run(['diff', '--stat', '--limit', '3', '--offset', '9', '--json']).json;
    expect([json.files.map((f: { path: string }) => f.path), json.diff, json.total, json.next_offset]).toStrictEqual([
      ['f9.txt'],
      '',
      10,
      undefined,
    ]);
    expect(box.run(['diff', '--stat']).stdout.split('\n').at(-2)).toBe('10 files changed');
    // Without --stat the limit still counts files and lines together.
    expect(box.run(['diff', '--limit', '3', '--json']).json.files.length).toBe(1);
  });

  it('over MCP with stat: true, the same pages', async () => {
    const mcp = await connect(box.home);
    try {
      const page = (await call(mcp.client, 'zipfs_diff', { stat: true, limit: 4 })).data;
      expect([page.files.length, page.diff, page.total, page.next_offset]).toStrictEqual([4, '', 10, 4]);
    } finally {
      await mcp.close();
    }
  });
});
