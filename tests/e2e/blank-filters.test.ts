/**
 * A filter given "" is what an unset shell variable gives (`open --only "$ONLY"`);
 * it must not mean "everything" (issue 28, item 13). open --only and extract
 * refuse a blank value or one naming the whole archive, grep refuses a blank
 * glob, all INVALID_INPUT before any work; paths that mean a place keep '' as the
 * root where that is documented (ls, grep's path). Over MCP an empty only list
 * is refused as well.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawZip } from '../helpers/raw-zip.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(
    box.dir,
    'app.zip',
    rawZip([
      { name: 'a.txt', data: 'a\n' },
      { name: 'd/b.txt', data: 'b\n' },
    ]),
  );
});
afterEach(() => box.cleanup());

const sessions = () => box.run(['sessions', '--json']).json.sessions;

describe('blank filters', () => {
  it('open --only "" (or blanks, "/", "./") is INVALID_INPUT naming the unset variable, and opens nothing', () => {
    for (const only of ['', ' ', '\t', '/', './']) {
      const opened = box.run(['open', zip, '--only', only, '--json']);
      expect(opened.json.error?.code, JSON.stringify(only)).toBe('INVALID_INPUT');
      if (only.trim() === '') expect(opened.json.error.message).toContain('unset shell variable');
      expect(sessions(), JSON.stringify(only)).toStrictEqual([]);
    }
    // Beside a real value too, and when the zip's session is already open (the value is not ignored).
    expect(box.run(['open', zip, '--only', 'a.txt', '--only', '', '--json']).json.error.code).toBe('INVALID_INPUT');
    box.run(['open', zip, '--only', 'a.txt']);
    expect(box.run(['open', zip, '--only', '', '--json']).json.error.code).toBe('INVALID_INPUT');
  });

  it('extract "" (or "/") is INVALID_INPUT and extracts nothing; extract with no argument still takes all', () => {
    const root = box.run(['open', zip, '--lazy', '--json']).json.workspace_path;
    for (const paths of [[''], ['  '], ['/'], ['d/b.txt', '']]) {
      expect(box.run(['extract', ...paths, '--json']).json.error?.code, JSON.stringify(paths)).toBe('INVALID_INPUT');
      expect(fs.readdirSync(root), JSON.stringify(paths)).toStrictEqual([]);
    }
    expect(box.run(['extract', '--json']).json.extracted).toBe(2);
  });

  it('grep --glob "" is INVALID_INPUT; grep\'s and ls\'s path "" is the root, as documented', () => {
    box.run(['open', zip]);
    expect(box.run(['grep', 'b', '--glob', '', '--json']).json.error.code).toBe('INVALID_INPUT');
    expect(box.run(['grep', 'b', '', '--json']).json.total_matches).toBe(1);
    expect(box.run(['ls', '', '--json']).json.entries).toHaveLength(2);
  });

  it('edit "" says the root is a folder (INVALID_INPUT), not that it became a link', () => {
    box.run(['open', zip]);
    expect(box.run(['edit', '', '--old', 'a', '--new', 'b', '--json']).json.error).toMatchObject({
      code: 'INVALID_INPUT',
      message: expect.stringContaining('is a folder'),
    });
  });

  it('over MCP: only [""] and only [] are INVALID_INPUT, and no session is made', async () => {
    const mcp = await connect(box.home);
    try {
      for (const only of [[''], []]) {
        expect((await call(mcp.client, 'zipfs_open', { path: zip, only })).data.error.code, JSON.stringify(only)).toBe(
          'INVALID_INPUT',
        );
      }
      expect((await call(mcp.client, 'zipfs_sessions')).data.sessions).toStrictEqual([]);
      await call(mcp.client, 'zipfs_open', { path: zip, lazy: true });
      expect((await call(mcp.client, 'zipfs_extract', { paths: [''] })).data.error.code).toBe('INVALID_INPUT');
      expect((await call(mcp.client, 'zipfs_grep', { pattern: 'b', glob: '' })).data.error.code).toBe('INVALID_INPUT');
    } finally {
      await mcp.close();
    }
  });
});
