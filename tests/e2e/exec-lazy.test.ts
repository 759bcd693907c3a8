/**
 * `zipfs exec --lazy` and `--only` (issue 30, point 3): exec's session extracts
 * nothing, or only the paths named, so a CI job's one edit of a large archive
 * neither extracts nor scans the rest; the command sees only what was
 * extracted. Without them exec stays eager: COMMAND may be any program. Sync
 * on success, discard on failure and the exit codes are exec's as ever.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { rawEntries } from '../helpers/zip-compare.ts';

const ENTRIES: RawEntry[] = [
  { name: 'META-INF/', unixMode: 0o40755 },
  { name: 'META-INF/MANIFEST.MF', data: 'Manifest-Version: 1.0\n', method: 8, unixMode: 0o100644 },
  { name: 'config/app.properties', data: 'server.port=8080\n', method: 8, unixMode: 0o100644 },
  { name: 'config/db.properties', data: 'db.url=jdbc:h2:mem\n', method: 8, unixMode: 0o100644 },
  { name: 'lib/a.class', data: 'cafebabe', method: 0, unixMode: 0o100644 },
];
const NAMES = ENTRIES.map((entry) => entry.name);

let box: ReturnType<typeof sandbox>;
let zip: string;
let original: Buffer;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(box.dir, 'app.jar', rawZip(ENTRIES));
  original = fs.readFileSync(zip);
});
afterEach(() => box.cleanup());

const env = () => ({ ZIPFS: BINARY });
const sessions = () => box.run(['sessions', '--json']).json.sessions;
/** The command's view of its workspace: the files in it, after its own step. */
const thenFiles = (step: string) => `${step} && find . -type f | sort`;
const content = (name: string) => rawEntries(zip).entries.get(name)!.content.toString();

describe('zipfs exec --lazy', () => {
  it('extracts only what the command changes through zipfs, syncs it, and keeps every other entry', () => {
    const result = box.run(
      [
        'exec',
        '--lazy',
        zip,
        '--',
        'sh',
        '-c',
        thenFiles('"$ZIPFS" edit -q config/app.properties --old 8080 --new 9090 >/dev/null'),
      ],
      { env: env() },
    );
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(['./config/app.properties']);
    expect(result.stderr).toContain('zipfs exec: synced 1 modified, 0 added, 0 deleted');
    expect(rawEntries(zip).order).toEqual(NAMES);
    expect(content('config/app.properties')).toBe('server.port=9090\n');
    expect(content('config/db.properties')).toBe('db.url=jdbc:h2:mem\n');
    expect(sessions()).toEqual([]);
  });

  it("passes on a failing command's status and discards its change", () => {
    const result = box.run(
      ['exec', '--lazy', zip, '--', 'sh', '-c', '"$ZIPFS" write -q new.txt --content x >/dev/null; exit 4'],
      { env: env() },
    );
    expect(result.code).toBe(4);
    expect(result.stderr).toContain('exited with 4; nothing synced, the session was discarded');
    expect(fs.readFileSync(zip).equals(original)).toBe(true);
    expect(sessions()).toEqual([]);
  });
});

describe('zipfs exec --only', () => {
  it('extracts the paths and globs named, for any program to change', () => {
    const result = box.run([
      'exec',
      '--only',
      'config/app.properties',
      '--only=META-INF/**',
      zip,
      '--',
      'sh',
      '-c',
      thenFiles("sed -i 's/8080/9090/' config/app.properties && echo added > config/new.properties"),
    ]);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual([
      './META-INF/MANIFEST.MF',
      './config/app.properties',
      './config/new.properties',
    ]);
    expect(result.stderr).toContain('zipfs exec: synced 1 modified, 1 added, 0 deleted');
    expect(rawEntries(zip).order).toEqual([...NAMES, 'config/new.properties']);
    expect(content('config/app.properties')).toBe('server.port=9090\n');
    expect(content('lib/a.class')).toBe('cafebabe');
  });

  it('refuses an --only without a path, before opening anything', () => {
    const result = box.run(['exec', zip, '--only=', '--', 'true']);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('--only needs a path or glob');
    expect(sessions()).toEqual([]);
  });
});

describe('zipfs exec without --lazy or --only', () => {
  it('extracts everything: the command sees every file', () => {
    const result = box.run(['exec', zip, '--', 'sh', '-c', 'find . -type f | sort']);
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toEqual(
      NAMES.filter((name) => !name.endsWith('/'))
        .map((name) => `./${name}`)
        .sort(),
    );
    expect(fs.readFileSync(zip).equals(original)).toBe(true);
  });
});
