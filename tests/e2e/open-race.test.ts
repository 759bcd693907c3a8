/**
 * Two opens of one zip at the same moment end as they do one after the other
 * (issue 28, item 16): one session, shared, whatever the timing. Session
 * creation for one zip is serialized by open's lock in the data folder
 * (session/open-lock.ts) around "find this zip's session, or publish mine".
 * Before the fix, 20 of 20 rounds of 3 parallel opens made 2 or 3 sessions.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';

let box: ReturnType<typeof sandbox>;
let zip: string;
beforeEach(() => {
  box = sandbox();
  zip = writeZip(
    box.dir,
    'app.zip',
    rawZip(Array.from({ length: 200 }, (_, i) => ({ name: `f${i}.txt`, data: 'x'.repeat(1000) }))),
  );
});
afterEach(() => box.cleanup());

/** Starts `count` opens of the zip at once in the data folder `home`; their JSON answers. */
async function openTogether(home: string, count: number, extra: string[] = []): Promise<any[]> {
  const env = { ...process.env, NO_COLOR: '1', ZIPFS_HOME: home, ZIPFS_SESSION: undefined };
  const children = Array.from({ length: count }, () =>
    Bun.spawn([BINARY, 'open', zip, ...extra, '--json'], { env, stdout: 'pipe', stderr: 'pipe' }),
  );
  return Promise.all(
    children.map(async (child) => (await child.exited, JSON.parse(await new Response(child.stdout).text()))),
  );
}

describe('opens of one zip at the same moment', () => {
  it.each([
    ['eager', []],
    ['lazy', ['--lazy']],
  ])('share one session (%s), in every one of 20 rounds of 3', async (_kind, extra) => {
    const split: number[] = [];
    for (let round = 0; round < 20; round++) {
      const home = path.join(box.dir, `home-${round}`);
      const answers = await openTogether(home, 3, extra as string[]);
      const sessions = fs.readdirSync(path.join(home, 'workspaces')).filter((n) => !n.startsWith('.'));
      if (sessions.length !== 1) split.push(round);
      else {
        expect(answers.map((a) => a.name)).toStrictEqual(['app', 'app', 'app']);
        expect(answers.filter((a) => a.already_open === true).length).toBe(2);
        expect(new Set(answers.map((a) => a.session_id)).size).toBe(1);
      }
      fs.rmSync(home, { recursive: true, force: true });
    }
    expect(split).toStrictEqual([]);
  });

  it('still gives --new and --name their own sessions', async () => {
    const answers = await openTogether(box.home, 3, ['--new']);
    expect(answers.map((a) => a.name).sort()).toStrictEqual(['app', 'app-2', 'app-3']);
  });
});
