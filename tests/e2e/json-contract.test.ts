/**
 * What scripts read (issue 24, point 5, in part): `--json` everywhere, the
 * version included; close with sync answers what sync answers; a dry run
 * says it removed nothing.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(box.dir, 'job.zip', rawZip([{ name: 'a.txt', data: 'a' }]));
});
afterEach(() => box.cleanup());

describe('the JSON a script reads', () => {
  it('gives the version as JSON with --json', () => {
    expect(box.run(['--version', '--json']).json).toStrictEqual({ version: pkg.version });
    expect(box.run(['--version']).stdout.trim()).toBe(pkg.version);
  });

  it('answers close --sync with the sync\'s counts and backup', () => {
    const root = box.run(['open', zip, '--json']).json.workspace_path;
    fs.writeFileSync(path.join(root, 'b.txt'), 'b');
    const closed = box.run(['close', '--sync', '--json']).json;
    expect(closed).toStrictEqual({ closed: true, synced: true, name: 'job', sync: { backup_path: `${zip}.bak`, files_modified: 0, files_added: 1, files_deleted: 0 } });
    expect(box.run(['open', zip, '--json']).json.file_count).toBe(2);
    expect(box.run(['close', '--json']).json).toStrictEqual({ closed: true, synced: false, name: 'job' });
  });

  it('says a dry-run prune removed nothing', () => {
    box.run(['open', zip]);
    const shown = box.run(['prune', '--all', '--dry-run']).stdout;
    expect(shown).toContain('1 item would be pruned');
    expect(shown).toContain('(dry run: nothing removed)');
    expect(box.run(['sessions', '--json']).json.sessions).toHaveLength(1);
  });
});
