/**
 * DOS times are local times: the cached hour starts (dos-time.ts), from the C library or from
 * Date (ZIPFS_NATIVE=0), must give what building the Date from local fields gives, in zones with
 * daylight saving, odd change times and none.
 */
import { expect, test } from 'bun:test';
import path from 'node:path';
import { dateToDosDateTime, dosDateTimeToDate } from '../../src/zip/dos-time.ts';

const helper = path.join(import.meta.dir, '..', 'helpers', 'dos-time-mismatches.ts');

// Newfoundland changed offset at 00:01 until 2011, Chatham changes at 2:45, Lord Howe by half an hour.
for (const zone of [
  'UTC',
  'Europe/Berlin',
  'America/New_York',
  'Australia/Lord_Howe',
  'America/St_Johns',
  'Pacific/Chatham',
  'Asia/Kolkata',
]) {
  for (const native of ['1', '0']) {
    test(
      `DOS fields read as local time in ${zone} (${native === '1' ? 'C library' : 'Date'}): every minute around ` +
        `changes of offset, and random fields`,
      () => {
        const run = Bun.spawnSync([process.execPath, helper], {
          env: { ...process.env, TZ: zone, ZIPFS_NATIVE: native },
          stderr: 'inherit',
        });
        expect(run.exitCode).toBe(0);
        const result = JSON.parse(run.stdout.toString());
        expect(result.native).toBe(native === '1' && process.platform === 'linux');
        expect(result.checked).toBeGreaterThan(50_000);
        expect(result.wrong).toEqual([]);
      },
    );
  }
}

test('a local time survives the round trip through DOS fields, to the even second below', () => {
  const when = new Date(2024, 6, 14, 13, 45, 27);
  const { dosDate, dosTime } = dateToDosDateTime(when);
  expect(dosDateTimeToDate(dosDate, dosTime).getTime()).toBe(new Date(2024, 6, 14, 13, 45, 26).getTime());
});
