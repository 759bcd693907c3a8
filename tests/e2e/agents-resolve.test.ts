/**
 * Issue 31's scenario, end to end: two agents on one zip over Streamable HTTP, neither naming a
 * session. Both edit index.html; the first syncs; the second's merge conflicts on the line both
 * changed, and it resolves in place (read the zip's side, edit the markers away, sync) in a handful
 * of calls. Nothing is lost, lines changed apart merge, and the zip as it was at open stays a backup.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { strToU8, zipSync } from 'fflate';
import fs from 'node:fs';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { httpAgent, startHttpServer } from '../helpers/http-server.ts';
import { call } from '../helpers/mcp-client.ts';

let box: ReturnType<typeof sandbox>;
let stop: (() => void) | undefined;
beforeEach(() => (box = sandbox()));
afterEach(() => {
  stop?.();
  box.cleanup();
});

const ORIGINAL = '<h1>Site</h1>\n<p>intro</p>\n<p>body</p>\n<p>more</p>\n<p>footer</p>\n';

describe('two agents over HTTP on one zip', () => {
  it('resolve a same-line conflict in place, lose nothing, and keep the original as a backup', async () => {
    const zip = writeZip(box.dir, 'site.zip', zipSync({ 'index.html': strToU8(ORIGINAL), 'app.js': strToU8('1\n') }));
    const original = fs.readFileSync(zip);
    const server = await startHttpServer(box.home);
    stop = server.stop;
    const a = await httpAgent(server.url, 'agent-a');
    const b = await httpAgent(server.url, 'agent-b');
    try {
      await call(a, 'zipfs_open', { path: zip });
      expect((await call(b, 'zipfs_open', { path: zip })).data.held_by.session).toBe('site');
      // A changes the title and the footer; B the title too (the same line) and the body.
      await call(a, 'zipfs_edit', {
        path: 'index.html',
        edits: [
          { old_text: 'Site', new_text: 'Site A' },
          { old_text: 'footer', new_text: 'footer A' },
        ],
      });
      await call(b, 'zipfs_edit', {
        path: 'index.html',
        edits: [
          { old_text: 'Site', new_text: 'Site B' },
          { old_text: 'body', new_text: 'body B' },
        ],
      });
      expect((await call(a, 'zipfs_sync')).data.synced).toBe(true);

      // B's resolution, counted: every call B makes after its first sync attempt.
      let calls = 0;
      const bCall = async (name: string, args: Record<string, unknown> = {}) => {
        calls++;
        return call(b, name, args);
      };
      const refused = await bCall('zipfs_sync', { merge: true });
      expect(refused.data.error.code).toBe('CONFLICT_DETECTED');
      expect(refused.data.error.message).toContain('zipfs_read');
      const theirs = await bCall('zipfs_read', { path: 'index.html', version: 'zip' });
      expect(theirs.data.content).toContain('Site A');
      const marked = (await bCall('zipfs_read', { path: 'index.html' })).data.content as string;
      expect(marked).toContain('<<<<<<< workspace');
      const conflict = marked.slice(marked.indexOf('<<<<<<<'), marked.indexOf('>>>>>>> zip') + '>>>>>>> zip\n'.length);
      await bCall('zipfs_edit', {
        path: 'index.html',
        edits: [{ old_text: conflict, new_text: '<h1>Site A+B</h1>\n' }],
      });
      const synced = (await bCall('zipfs_sync', { merge: true })).data;
      expect(synced.synced).toBe(true);
      expect(calls).toBeLessThanOrEqual(5);

      // Nothing lost: both agents' other lines and the resolution are in the zip.
      const final = (await call(a, 'zipfs_read', { path: 'index.html', version: 'zip' })).data.content;
      expect(final).toBe('<h1>Site A+B</h1>\n<p>intro</p>\n<p>body B</p>\n<p>more</p>\n<p>footer A</p>\n');
      // The original survives both syncs as a numbered backup; .bak is A's version.
      const backups = fs.readdirSync(box.dir).filter((name) => name.endsWith('.bak'));
      expect(backups.sort()).toStrictEqual(['site.zip.1.bak', 'site.zip.bak']);
      expect(fs.readFileSync(`${zip}.1.bak`).equals(original)).toBe(true);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
