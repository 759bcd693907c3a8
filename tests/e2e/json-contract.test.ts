/**
 * What scripts read (issue 24, point 5): `--json` everywhere, the version
 * included; close with sync answers what sync answers; a dry run says it
 * removed nothing; help lists every output field; -q silences chatter but not
 * results, warnings or errors; answers on stdout and notes on stderr, as git.
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

  it("answers close --sync with the sync's counts and backup", () => {
    const root = box.run(['open', zip, '--json']).json.workspace_path;
    fs.writeFileSync(path.join(root, 'b.txt'), 'b');
    const closed = box.run(['close', '--sync', '--json']).json;
    expect(closed).toStrictEqual({
      closed: true,
      synced: true,
      name: 'job',
      sync: { backup_path: `${zip}.bak`, files_modified: 0, files_added: 1, files_deleted: 0 },
    });
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

  it('lists the output fields with what they hold in zipfs help CMD and CMD --help', () => {
    const help = box.run(['help', 'sync']).stdout;
    expect(help).toContain('OUTPUT (--json prints this object');
    expect(help).toMatch(/backup_path\s+string or null: Where the previous zip was kept/);
    expect(help).toMatch(/files_renamed\s+integer, sometimes: /);
    expect(box.run(['prune', '--help']).stdout).toMatch(/skipped\[\]\.reason\s+string: Why/);
  });
});

describe('-q and where output goes', () => {
  it('silences success messages and chatter but prints results, warnings and errors', () => {
    const opened = box.run(['open', zip, '-q']);
    expect([opened.code, opened.stdout, opened.stderr]).toStrictEqual([0, '', '']);
    expect(box.run(['-q', 'write', 'b.txt', 'hello'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(box.run(['edit', 'b.txt', '--old', 'hello', '--new', 'hi', '--quiet'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect(box.run(['read', 'b.txt', '-q']).stdout).toBe('hi');
    expect(box.run(['path', '-q']).stdout.trim()).toEndWith('contents');
    expect(box.run(['status', '-q']).stdout).toBe('A b.txt\n');
    const missing = box.run(['read', 'nope.txt', '-q']);
    expect(missing.code).toBe(12);
    expect(missing.stderr).toContain('[PATH_NOT_FOUND]');
    expect(box.run(['sync', '-q'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(box.run(['close', '-q'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(box.run(['-q', 'exec', zip, '--', 'sh', '-c', 'echo c > c.txt'])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    });
    expect(box.run(['--json', '-q', 'open', zip]).json.file_count).toBe(3); // --json is the object alone anyway
  });

  it('says "Nothing to sync" on stdout, as git status says "nothing to commit", and nothing with -q', () => {
    box.run(['open', zip]);
    expect(box.run(['status'])).toMatchObject({ code: 0, stdout: 'Nothing to sync: 1 entry unchanged.\n', stderr: '' });
    expect(box.run(['status', '-q'])).toMatchObject({ code: 0, stdout: '', stderr: '' });
    // a patch file stays empty
    expect(box.run(['diff'])).toMatchObject({ code: 0, stdout: '', stderr: 'No changes.\n' });
  });
});
