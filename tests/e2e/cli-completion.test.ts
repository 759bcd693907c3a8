import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { needs } from '../helpers/tools.ts';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { COMMANDS } from '../../src/registry.ts';
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
      shell('bash', `source <(zipfs completion bash); COMP_WORDS=(${words.map((w) => `'${w}'`).join(' ')}); COMP_CWORD=${words.length - 1}; _zipfs; printf '%s\\n' "\${COMPREPLY[@]}"`);
    expect(complete(['zipfs', 'gr'])).toStrictEqual(['grep']);
    expect(complete(['zipfs', 'ls', '--re'])).toStrictEqual(['--recursive']);
    expect(complete(['zipfs', 'read', 'x', '--encoding', ''])).toStrictEqual(['utf-8', 'base64']);
    expect(complete(['zipfs', 'sync', '-s', 'q4'])).toStrictEqual(['q4-report']);
  });

  it.skipIf(withFishZsh.skip)(`completes in fish and loads in zsh${withFishZsh.why}`, () => {
    expect(shell('fish', 'zipfs completion fish | source; complete -C "zipfs grep --ignore"')).toStrictEqual(['--ignore-case\tIgnore case']);
    expect(shell('fish', 'zipfs completion fish | source; complete -C "zipfs close --session "')).toStrictEqual([expect.stringMatching(/^q4-report\t/)]);
    const zsh = path.join(box.dir, '_zipfs');
    fs.writeFileSync(zsh, Bun.spawnSync([BINARY, 'completion', 'zsh']).stdout);
    expect(Bun.spawnSync(['zsh', '-n', zsh]).exitCode).toBe(0);
    expect(shell('zsh', `autoload -Uz compinit && compinit -u -d ${box.dir}/zcompdump; source ${zsh}; print -r -- \${+functions[_zipfs]}`)).toStrictEqual(['1']);
  });

  it('refuses an unknown shell', () => {
    expect(box.run(['completion', 'powershell', '--json']).json.error.code).toBe('INVALID_INPUT');
  });

  it('is generated from the table: a new row appears in every script', () => {
    const extra = { ...COMMANDS[0]!, name: 'zz-extra', description: 'An extra row.', cli: { example: 'zipfs zz-extra' } };
    for (const shellName of ['bash', 'zsh', 'fish']) {
      expect(completionScript(shellName, COMMANDS)).not.toContain('zz-extra');
      expect(completionScript(shellName, [...COMMANDS, extra])).toContain('zz-extra');
    }
  });
});
