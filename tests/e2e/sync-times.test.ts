/**
 * File times through sync and a fresh open: the extended-timestamp field (0x5455) holds 32 bits,
 * and a time past 2038-01-19 once came back as 1901-1970 because it was read back signed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/cli.ts';
import { needs } from '../helpers/tools.ts';

const withPython = needs('python3');
const withZipinfo = needs('zipinfo');

const box = sandbox();
afterAll(() => box.cleanup());

/** Times that the extended timestamp holds (1970 to 2106), at whole seconds. */
const FITTING = {
  'before-2038.txt': new Date('2020-03-04T05:06:07Z'),
  'at-2038.txt': new Date('2038-01-19T03:14:08Z'), // 2^31 seconds: the first that a signed read wraps
  'in-2040.txt': new Date('2040-06-01T12:00:00Z'),
  'in-2100.txt': new Date('2100-06-01T12:00:00Z'),
};
/**
 * Local times outside that range but inside the DOS fields' (1980-2107), at even seconds: the DOS fields carry them.
 */
const DOS_ONLY = { 'in-2107.txt': new Date(2107, 5, 1, 12, 0, 0) };

let zip: string;
beforeAll(() => {
  zip = path.join(box.dir, 'times.zip');
  // One entry that already has an extended timestamp (as Info-ZIP and Python writers add), so the
  // refreshed field of a modified entry is tested beside the new field of an added one.
  const script = `import struct, sys, zipfile
with zipfile.ZipFile(sys.argv[1], 'w') as z:
    i = zipfile.ZipInfo('modified-2040.txt', (2020, 1, 2, 3, 4, 6))
    i.extra = struct.pack('<HHBI', 0x5455, 5, 1, 1577934246)
    z.writestr(i, 'old')
    z.writestr('kept.txt', 'kept')`;
  if (!withPython.skip) expect(Bun.spawnSync(['python3', '-c', script, zip]).exitCode).toBe(0);
});

/** The extracted files' times (whole seconds) after sync, close and a fresh open. */
function timesAfterRoundTrip(): Record<string, number> {
  const root = box.run(['open', zip, '--json']).json.workspace_path;
  const all = { ...FITTING, ...DOS_ONLY, 'modified-2040.txt': new Date('2040-02-03T04:05:06Z') };
  for (const [name, time] of Object.entries(all)) {
    fs.writeFileSync(path.join(root, name), `${name}\n`);
    fs.utimesSync(path.join(root, name), time, time);
  }
  expect(box.run(['sync']).code).toBe(0);
  expect(box.run(['close']).code).toBe(0);
  const reopened = box.run(['open', zip, '--json']).json.workspace_path;
  return Object.fromEntries(Object.keys(all).map((name) => [name, fs.statSync(path.join(reopened, name)).mtimeMs]));
}

describe.skipIf(withPython.skip)(`file times through sync and open${withPython.why}`, () => {
  let times: Record<string, number>;
  beforeAll(() => (times = timesAfterRoundTrip()));

  it('keeps times after 2038-01-19 (2040, 2100) exactly, and times before it as they were', () => {
    for (const [name, time] of Object.entries(FITTING))
      expect(new Date(times[name]!).toISOString(), name).toBe(time.toISOString());
  });

  it("refreshes a modified entry's extended timestamp with a time after 2038", () => {
    expect(new Date(times['modified-2040.txt']!).toISOString()).toBe('2040-02-03T04:05:06.000Z');
  });

  it('leaves a time the extended timestamp cannot hold to the DOS fields, instead of wrapping it', () => {
    expect(new Date(times['in-2107.txt']!).toISOString()).toBe(DOS_ONLY['in-2107.txt'].toISOString());
  });

  it('is what Python reads from the DOS fields', () => {
    const script = `import json, sys, zipfile
print(json.dumps({i.filename: i.date_time for i in zipfile.ZipFile(sys.argv[1]).infolist()}))`;
    const read = JSON.parse(Bun.spawnSync(['python3', '-c', script, zip]).stdout.toString());
    for (const [name, time] of Object.entries({ ...FITTING, ...DOS_ONLY })) {
      const local = [
        time.getFullYear(),
        time.getMonth() + 1,
        time.getDate(),
        time.getHours(),
        time.getMinutes(),
        time.getSeconds() & ~1,
      ];
      expect(read[name], name).toStrictEqual(local);
    }
  });

  it.skipIf(withZipinfo.skip)(`is what Info-ZIP's zipinfo reads from the extended timestamp${withZipinfo.why}`, () => {
    const verbose = Bun.spawnSync(['zipinfo', '-v', zip, 'in-2040.txt', 'in-2100.txt', 'in-2107.txt'], {
      env: { ...process.env, TZ: 'UTC' },
    }).stdout.toString();
    const [in2040, in2100, in2107] = verbose.split(/Central directory entry #\d+:/).slice(1);
    expect(in2040).toContain('file last modified on (UT extra field modtime): 2040 Jun 1 12:00:00 UTC');
    expect(in2100).toContain('file last modified on (UT extra field modtime): 2100 Jun 1 12:00:00 UTC');
    expect(in2107).not.toContain('UT extra field'); // no field rather than a wrapped one
  });
});
