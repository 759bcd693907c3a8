import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import { needs } from '../helpers/tools.ts';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { bar } from '../../src/cli/progress-line.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { binaryBytes } from '../helpers/fixtures.ts';

const withScript = needs('script');

const box = sandbox();
let zip: string;
beforeAll(() => {
  zip = writeZip(
    box.dir,
    'media.zip',
    rawZip(
      Array.from({ length: 30 }, (_, i) => ({ name: `clip${i}.bin`, data: binaryBytes(100_000), method: 0 as const })),
    ),
  );
});
afterAll(() => box.cleanup());

/** Runs zipfs on a pseudo-terminal (util-linux `script`), as a person at a terminal would. */
function onTerminal(args: string, env: Record<string, string> = {}): string {
  const vars = Object.entries({ ZIPFS_HOME: box.home, TERM: 'xterm', ...env })
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  const result = Bun.spawnSync(['script', '-qec', `env -u NO_COLOR ${vars} ${BINARY} ${args}`, '/dev/null']);
  return result.stdout.toString();
}

describe.skipIf(withScript.skip)(`the CLI at a terminal${withScript.why}`, () => {
  it('draws a progress bar on stderr for open and sync, only on a terminal', () => {
    const shown = onTerminal(`open ${zip}`, { ZIPFS_PROGRESS_DELAY_MS: '0' });
    expect(shown).toContain('open [');
    expect(shown).toContain('100%  2.9 MiB / 2.9 MiB');
    onTerminal(`write clip0.bin changed`);
    expect(onTerminal('sync', { ZIPFS_PROGRESS_DELAY_MS: '0' })).toContain('sync [');
    const piped = box.run(['open', zip, '--name', 'piped'], { env: { ZIPFS_PROGRESS_DELAY_MS: '0' } });
    expect(piped.stderr).not.toContain('open ['); // no bar off a terminal (the note on other sessions stays)
  });

  it('stays quiet for operations under the delay', () => {
    expect(onTerminal(`open ${zip} --name quick`)).not.toContain('open [');
  });

  it('colours human output on a terminal, and not under NO_COLOR or in a pipe', () => {
    onTerminal('write -s quick new.txt hello');
    expect(onTerminal('status quick')).toContain('\u001b[32mA new.txt');
    expect(onTerminal('status quick', { NO_COLOR: '1' })).not.toContain('\u001b[');
    expect(box.run(['status', 'quick']).stdout).toBe('A new.txt\n');
  });

  it('starts a note on a line of its own after raw output without a final newline, and highlights grep matches', () => {
    onTerminal('write -s quick words.txt "alpha beta gamma delta"');
    const screen = onTerminal('read -s quick words.txt --limit 5');
    expect(screen).toMatch(/alpha\r?\n.*more bytes; continue with --offset 5/);
    expect(onTerminal('grep -s quick beta')).toContain('\u001b[1m\u001b[31mbeta');
  });

  it('renders the bar with sizes', () => {
    expect(bar('open', 512, 1024)).toBe(`open [${'█'.repeat(12)}${'░'.repeat(12)}]  50%  512 B / 1.0 KiB`);
    expect(bar('sync', 0, 0)).toContain('100%');
  });
});
