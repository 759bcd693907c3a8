/**
 * The MCP server's roots on Windows (issue 33): zipfs.exe under Wine, driven by the SDK's Client on the
 * Windows side, judges the forms one Windows path takes (drive-letter case, `\\?\`, forward slashes,
 * another case of a folder) as one place, and a sibling or `..` outside as outside.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { writeZip } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { mcpCalls, toWindows, wine, wineSandbox } from '../helpers/wine.ts';

let box: ReturnType<typeof wineSandbox>;
beforeEach(() => (box = wineSandbox()));
afterEach(() => box.cleanup());

describe.skipIf(wine.skip)(`allowed roots on Windows (zipfs.exe under Wine)${wine.why}`, () => {
  it('takes every spelling of a path in the root, and refuses a sibling, .. and another folder', () => {
    for (const folder of ['work', 'work2', 'outside']) fs.mkdirSync(path.join(box.dir, folder));
    writeZip(path.join(box.dir, 'work'), 'in.zip', reportsZip());
    writeZip(path.join(box.dir, 'work2'), 'near.zip', reportsZip());
    writeZip(path.join(box.dir, 'outside'), 'secret.zip', reportsZip());
    const win = (...parts: string[]) => toWindows(path.join(box.dir, ...parts));
    const inside = win('work', 'in.zip');
    const allowed = [
      `z${inside.slice(1)}`, // the drive letter in lower case
      `\\\\?\\${inside}`, // the long-path form
      inside.replaceAll('\\', '/'),
      win('WORK', 'in.zip'), // another case of the root, which Windows folders fold
    ];
    const refused = [
      win('outside', 'secret.zip'),
      win('work2', 'near.zip'), // a sibling whose name starts with the root's
      `${win('work')}\\..\\outside\\secret.zip`,
      `\\\\?\\${win('outside', 'secret.zip')}`,
    ];
    const transcript = mcpCalls(
      { ZIPFS_HOME: toWindows(box.home), ZIPFS_ROOTS: `${win('work')}\\` },
      [...allowed, ...refused].map((zip) => ({ name: 'zipfs_inspect', arguments: { path: zip } })),
    );
    const outcome = transcript.results.map((result) =>
      result.isError ? JSON.parse(result.content[0]!.text).error.code : 'ok',
    );
    expect(outcome).toStrictEqual([...allowed.map(() => 'ok'), ...refused.map(() => 'PERMISSION_DENIED')]);
  }, 120_000);
});
