/**
 * The CLI as people and scripts meet it, with git, ripgrep and fd as the
 * reference: one session per zip, files read as bytes, paths from the current
 * folder inside a workspace, grep's exit codes, help and typos, and files that
 * are not zips named for what they are.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { reportsSandbox, type sandbox } from '../helpers/cli.ts';
import { binaryBytes } from '../helpers/fixtures.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
let root: string;
beforeEach(() => ({ box, zip, root } = reportsSandbox(true)));
afterEach(() => box.cleanup());

describe('one session per zip', () => {
  it('returns the open session when the same zip is opened again, and says so; a name asks for another', () => {
    const again = box.run(['open', zip, '--json']).json;
    expect(again).toMatchObject({ name: 'reports', already_open: true, workspace_path: root });
    expect(box.run(['open', path.relative(process.cwd(), zip)]).stdout).toContain('Already open as session "reports"');
    expect(box.run(['open', zip, '--name', 'second', '--json']).json.name).toBe('second');
    expect(box.run(['sessions', '--json']).json.sessions).toHaveLength(2);
  });
});

describe('zipfs read on the CLI', () => {
  it('writes a binary file as its bytes, and base64 only when asked', () => {
    const piped = Bun.spawnSync([path.resolve(import.meta.dir, '../../dist/zipfs'), 'read', 'logo.png'], {
      env: { ...process.env, ZIPFS_HOME: box.home },
    });
    expect(Buffer.from(piped.stdout).equals(Buffer.from(binaryBytes(3000)))).toBe(true);
    expect(box.run(['read', 'logo.png', '--encoding', 'base64']).stdout).toBe(
      Buffer.from(binaryBytes(3000)).toString('base64'),
    );
  });
});

describe('paths from the current folder inside a workspace', () => {
  it('reads, writes, lists and greps relative to it; a leading / is the workspace root', () => {
    const data = path.join(root, 'data');
    expect(box.run(['read', 'input.csv'], { cwd: data }).stdout).toBe('id,value\n1,10\n2,20\n');
    expect(box.run(['read', '/README.txt'], { cwd: data }).stdout).toBe('Quarterly report\n');
    expect(box.run(['write', 'new.csv', 'x', '--json'], { cwd: data }).json.written).toBe(true);
    expect(fs.existsSync(path.join(data, 'new.csv'))).toBe(true);
    expect(box.run(['ls', '--json'], { cwd: data }).json.entries.map((e: { name: string }) => e.name)).toContain(
      'input.csv',
    );
    // README.txt is above data/
    expect(box.run(['grep', 'Quarterly', '--json'], { cwd: data }).json.total_matches).toBe(0);
    expect(box.run(['mv', 'new.csv', 'renamed.csv', '--json'], { cwd: data }).json.to).toBe('data/renamed.csv');
    // outside a workspace: from its root
    expect(box.run(['read', 'README.txt'], { cwd: box.dir }).stdout).toBe('Quarterly report\n');
  });
});

describe('zipfs grep exit codes', () => {
  it('exits 0 with matches, 1 with none, 2 and up on errors, as grep and rg do', () => {
    expect(box.run(['grep', 'debug']).code).toBe(0);
    expect(box.run(['grep', 'no such text anywhere']).code).toBe(1);
    expect(box.run(['grep', '(unclosed']).code).toBe(ERROR_CODES.INVALID_INPUT.exit);
  });
});

describe('zipfs grep -q', () => {
  it('prints nothing and answers by exit status, as grep -q and rg -q do; errors still print', () => {
    for (const quiet of ['-q', '--quiet']) {
      const found = box.run(['grep', quiet, 'debug', 'data/config.json']);
      expect([found.code, found.stdout, found.stderr]).toStrictEqual([0, '', '']);
      const none = box.run(['grep', quiet, 'no such text anywhere']);
      expect([none.code, none.stdout, none.stderr]).toStrictEqual([1, '', '']);
      const bad = box.run(['grep', quiet, '(unclosed']);
      expect(bad.code).toBe(ERROR_CODES.INVALID_INPUT.exit);
      expect(bad.stderr).toContain('pattern');
    }
    expect(box.run(['help', 'grep']).stdout).toMatch(/-q, --quiet +Print nothing, as grep -q/);
  });
});

/** Every command `zipfs --help` lists (and each alias it names): the list a new command joins by itself. */
function listedCommands(): string[] {
  const help = box.run(['--help']).stdout;
  const section = help.slice(help.indexOf('COMMANDS'));
  const names = [...section.matchAll(/^ {2,}([a-z][a-z-]*) {4}/gm)].map((m) => m[1]!);
  const aliases = [...section.matchAll(/\(also: zipfs ([^)]*)\)/g)].flatMap((m) => m[1]!.split(/,\s*/));
  return [...names, ...aliases];
}

describe('help for every command', () => {
  it('lists the table and the modes', () => {
    expect(listedCommands()).toEqual(
      expect.arrayContaining(['open', 'grep', 'sync', 'mcp', 'exec', 'completion', 'help', 'mv']),
    );
  });

  // Built from the listing when the tests run, so a command added later is checked without a test of its own.
  it('answers CMD --help and help CMD for each with its usage, an example and where it is documented (or its output ' +
    'fields), exit 0, starting nothing', () => {
    const commands = listedCommands();
    expect(commands.length).toBeGreaterThan(20);
    for (const name of commands) {
      const flag = box.run([name, '--help'], { timeoutMs: 10_000 });
      expect([flag.code, flag.stderr], name).toStrictEqual([0, '']);
      expect(flag.stdout, name).toMatch(new RegExp(`USAGE zipfs (${name}|\\S+) `));
      expect(flag.stdout, name).toContain('EXAMPLE');
      expect(flag.stdout, name).toMatch(/OUTPUT|DOCUMENTED IN/);
      const topic = box.run(['help', name], { timeoutMs: 10_000 });
      expect([topic.code, topic.stdout], name).toStrictEqual([0, flag.stdout]);
    }
    expect(box.run(['help', 'help']).stdout).toContain('USAGE zipfs help [OPTIONS] [COMMAND]');
  }, 120_000);

  it('completes every command it lists, in each shell', () => {
    const commands = listedCommands();
    for (const shell of ['bash', 'zsh', 'fish']) {
      const script = box.run(['completion', shell]).stdout;
      for (const name of commands) expect(script, `${shell}: ${name}`).toMatch(new RegExp(`[\\s'"(]${name}[\\s:)'"]`));
    }
    expect(box.run(['completion', 'bash']).stdout).toContain('exec) opts="--merge');
  });
});

describe('help and typos', () => {
  it('has zipfs help and zipfs help COMMAND', () => {
    const help = box.run(['help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('Open a zip as a folder');
    const sync = box.run(['help', 'sync']);
    expect(sync.code).toBe(0);
    expect(sync.stdout).toContain('USAGE zipfs sync');
  });

  it('suggests the command meant by a typo, and names an unknown option before the help', () => {
    const typo = box.run(['stauts']);
    expect(typo.code).toBe(ERROR_CODES.INVALID_INPUT.exit);
    expect(typo.stderr).toContain('Did you mean status?');
    expect(box.run(['help', 'mvv']).stderr).toContain('Did you mean mv?');
    const bogus = box.run(['--bogus']);
    expect(bogus.code).toBe(ERROR_CODES.INVALID_INPUT.exit);
    expect(bogus.stderr).toContain('unknown option --bogus');
  });
});

describe('files that are not zips', () => {
  it.each([
    ['a .tar.gz', Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, ...Array(40).fill(0)]), 'This is a gzip file'],
    ['a .7z', Buffer.from([0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c, ...Array(40).fill(0)]), 'This is a 7z archive'],
    ['a .tar', Buffer.concat([Buffer.alloc(257), Buffer.from('ustar'), Buffer.alloc(250)]), 'This is a tar archive'],
  ])('names %s for what it is', (_what, bytes, message) => {
    const file = path.join(box.dir, 'not-a-zip');
    fs.writeFileSync(file, bytes);
    const result = box.run(['open', file, '--json']);
    expect(result.json.error.code).toBe('ZIP_INVALID');
    expect(result.json.error.message).toContain(message);
  });
});
