import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { waitFor } from '../helpers/wait-for.ts';
import { needs } from '../helpers/tools.ts';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { COMMANDS } from '../../src/table/registry.ts';
import { completionScript } from '../../src/cli/completion.ts';

const withFishZsh = needs('fish', 'zsh');

const box = sandbox();
const env = { ...process.env, ZIPFS_HOME: box.home, PATH: `${path.dirname(BINARY)}:${process.env.PATH}` };
beforeAll(() => box.run(['open', writeZip(box.dir, 'reports.zip', reportsZip()), '--name', 'q4-report']));
afterAll(() => box.cleanup());

function shell(program: string, script: string): string[] {
  const result = Bun.spawnSync([program, '-c', script], { env });
  if (result.exitCode !== 0) throw new Error(result.stderr.toString());
  return result.stdout.toString().trim().split('\n');
}

describe('zipfs completion', () => {
  it('completes commands, flags, values and session names in bash', () => {
    const complete = (words: string[]) =>
      shell(
        'bash',
        `source <(zipfs completion bash); ` +
          `COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _zipfs; printf ` +
          `'%s\\n' "\${COMPREPLY[@]}"`,
      );
    expect(complete(['zipfs', 'gr'])).toStrictEqual(['grep']);
    expect(complete(['zipfs', 'ls', '--re'])).toStrictEqual(['--recursive']);
    expect(complete(['zipfs', 'read', 'x', '--encoding', ''])).toStrictEqual([
      'utf-8',
      'utf-16le',
      'utf-16be',
      'iso-8859-1',
      'windows-1252',
      ...['cp437', 'cp850', 'cp866', 'windows-1250', 'windows-1251', 'shift_jis', 'gbk', 'big5', 'euc-kr'],
      'base64',
    ]);
    expect(complete(['zipfs', 'sync', '-s', 'q4'])).toStrictEqual(['q4-report']);
  });

  it.skipIf(withFishZsh.skip)(`completes in fish and loads in zsh${withFishZsh.why}`, () => {
    expect(shell('fish', 'zipfs completion fish | source; complete -C "zipfs grep --ignore"')).toStrictEqual([
      '--ignore-case\tIgnore case',
    ]);
    expect(shell('fish', 'zipfs completion fish | source; complete -C "zipfs close --session "')).toStrictEqual([
      expect.stringMatching(/^q4-report\t/),
    ]);
    const zsh = path.join(box.dir, '_zipfs');
    fs.writeFileSync(zsh, Bun.spawnSync([BINARY, 'completion', 'zsh']).stdout);
    expect(Bun.spawnSync(['zsh', '-n', zsh]).exitCode).toBe(0);
    expect(
      shell(
        'zsh',
        `autoload -Uz compinit && compinit -u -d ${box.dir}/zcompdump; source ${zsh}; print -r -- ` +
          `\${+functions[_zipfs]}`,
      ),
    ).toStrictEqual(['1']);
  });

  it.skipIf(needs('tmux').skip)(
    `completes at a real bash prompt, pressing Tab (under tmux)${needs('tmux').why}`,
    async () => {
      const socket = path.join(box.dir, 'tmux.sock');
      const tmux = (...args: string[]) =>
        Bun.spawnSync(['tmux', '-S', socket, ...args], { env: { ...env, PS1: '$ ', TERM: 'xterm' }, cwd: box.dir });
      tmux('new-session', '-d', '-x', '200', '-y', '40', 'bash --norc --noprofile -i');
      const screen = () => tmux('capture-pane', '-p').stdout.toString();
      // bash has run a command once the `echo MARK-$((N-1+1))` typed after it prints MARK-N (the typed line never shows
      // MARK-N).
      let marks = 0;
      const settle = async (command: string) => {
        marks += 2;
        tmux('send-keys', `${command}; echo MARK-$((${marks - 1}+1))`, 'Enter');
        await waitFor(() => screen().includes(`MARK-${marks}\n`), { what: `bash to run: ${command}` });
      };
      // Waits for what the screen must show (the timeout only bounds a failure), then returns the screen.
      const screenAfter = async (typed: string, shows: RegExp) => {
        await settle('clear');
        tmux('send-keys', typed, 'Tab', 'Tab');
        await waitFor(() => shows.test(screen()), {
          what: `${shows} after typing "${typed}" and Tab Tab`,
          timeoutMs: 5_000,
        }).catch(
          () => undefined, // the expect after shows the screen
        );
        const shown = screen();
        tmux('send-keys', 'C-u');
        return shown;
      };
      try {
        await settle('source <(zipfs completion bash)');
        expect(await screenAfter('zipfs completion ', /bash\s+fish\s+zsh/)).toMatch(/bash\s+fish\s+zsh/);
        expect(await screenAfter('zipfs sync ', /zipfs sync q4-report/)).toContain('zipfs sync q4-report');
        // Workspace paths, not the files of the current folder (which holds reports.zip): the whole list is
        // drawn at once, so once README.txt and logo.png show, reports.zip would show too.
        const read = await screenAfter('zipfs read ', /README\.txt[\s\S]*logo\.png|logo\.png[\s\S]*README\.txt/);
        expect(read).toContain('README.txt');
        expect(read).toContain('logo.png');
        expect(read).not.toContain('reports.zip');
        expect(await screenAfter('zipfs write x --no-c', /--no-create-dirs/)).toContain('--no-create-dirs');
        expect(await screenAfter('zipfs open rep', /zipfs open reports\.zip/)).toContain('zipfs open reports.zip');
      } finally {
        tmux('kill-server');
      }
    },
    30_000,
  );

  it('refuses an unknown shell', () => {
    expect(box.run(['completion', 'powershell', '--json']).json.error.code).toBe('INVALID_INPUT');
  });

  it('is generated from the table: a new row appears in every script', () => {
    const extra = {
      ...COMMANDS[0]!,
      name: 'zz-extra',
      description: 'An extra row.',
      cli: { example: 'zipfs zz-extra' },
    };
    for (const shellName of ['bash', 'zsh', 'fish']) {
      expect(completionScript(shellName, COMMANDS)).not.toContain('zz-extra');
      expect(completionScript(shellName, [...COMMANDS, extra])).toContain('zz-extra');
    }
  });
});
