/**
 * Resolving a merge conflict in place (issue 31, point 1): two sessions of one zip change the same
 * lines; the second's merge conflicts; read with version zip shows the other's text, diff against
 * the zip shows both, restore takes the zip's, an edit adds the workspace's change, and the merge
 * then syncs with nothing lost. On the CLI, and over MCP with the SDK's Client.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawZip } from '../helpers/raw-zip.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(
    box.dir,
    'site.zip',
    rawZip([
      { name: 'index.html', data: 'a\nb\nc\n', method: 8 },
      { name: 'other.txt', data: 'other\n' },
    ]),
  );
});
afterEach(() => box.cleanup());

describe('resolving a conflict in place', () => {
  it('on the CLI: read --from zip, diff --against zip, restore --from zip, edit, sync', () => {
    const one = box.run(['open', zip, '--name', 'one', '--json']).json.workspace_path;
    const two = box.run(['open', zip, '--name', 'two', '--lazy', '--json']).json.workspace_path;
    fs.writeFileSync(path.join(one, 'index.html'), 'a\nONE\nc\n');
    expect(box.run(['sync', 'one', '--json']).json.synced).toBe(true);
    fs.writeFileSync(path.join(two, 'index.html'), 'a\nTWO\nc\n');
    const refused = box.run(['sync', 'two', '--merge', '--json']);
    expect(refused.json.error.code).toBe('CONFLICT_DETECTED');
    expect(refused.json.error.message).toContain('zipfs restore index.html --from zip');
    expect(box.run(['read', 'index.html', '-s', 'two', '--from', 'zip']).stdout).toBe('a\nONE\nc\n');
    expect(box.run(['read', 'index.html', '-s', 'two', '--from', 'base']).stdout).toBe('a\nb\nc\n');
    // The lazy session's entry never extracted is read from the base it keeps, though the zip moved.
    expect(box.run(['read', 'other.txt', '-s', 'two']).stdout).toBe('other\n');
    expect(box.run(['diff', '-s', 'two', '--against', 'zip']).stdout).toContain('+<<<<<<< workspace');
    expect(box.run(['diff', '-s', 'two']).stdout).toContain('+>>>>>>> zip');
    const restored = box.run(['restore', 'index.html', '-s', 'two', '--from', 'zip', '--json']).json;
    expect(restored).toMatchObject({ from: 'zip', written: 1, restored: [{ path: 'index.html', action: 'written' }] });
    fs.writeFileSync(path.join(two, 'index.html'), 'a\nONE and TWO\nc\n');
    expect(box.run(['sync', 'two', '--merge', '--json']).json.synced).toBe(true);
    expect(Bun.spawnSync(['unzip', '-p', zip, 'index.html']).stdout.toString()).toBe('a\nONE and TWO\nc\n');
  });

  it('over MCP: the resolution takes read, restore, write and sync', async () => {
    const mcp = await connect(box.home);
    try {
      const one = (await call(mcp.client, 'zipfs_open', { path: zip, name: 'one' })).data.workspace_path;
      const two = (await call(mcp.client, 'zipfs_open', { path: zip, name: 'two' })).data.workspace_path;
      fs.writeFileSync(path.join(one, 'index.html'), 'a\nONE\nc\n');
      expect((await call(mcp.client, 'zipfs_sync', { session: 'one' })).data.synced).toBe(true);
      fs.writeFileSync(path.join(two, 'index.html'), 'a\nTWO\nc\n');
      const refused = await call(mcp.client, 'zipfs_sync', { session: 'two', merge: true });
      expect(refused.isError).toBe(true);
      expect(refused.data.error.message).toContain('zipfs_read with path: "index.html", version: "zip"');
      const theirs = await call(mcp.client, 'zipfs_read', { session: 'two', path: 'index.html', version: 'zip' });
      expect(theirs.data.content).toBe('a\nONE\nc\n');
      const restored = await call(mcp.client, 'zipfs_restore', { session: 'two', paths: ['index.html'] });
      expect(restored.data.written).toBe(1);
      await call(mcp.client, 'zipfs_write', { session: 'two', path: 'index.html', content: 'a\nONE\nc\nTWO\n' });
      expect((await call(mcp.client, 'zipfs_sync', { session: 'two', merge: true })).data.synced).toBe(true);
      const other = await call(mcp.client, 'zipfs_read', { session: 'one', path: 'index.html', version: 'zip' });
      expect(other.data.content).toBe('a\nONE\nc\nTWO\n');
    } finally {
      await mcp.close();
    }
  });
});
