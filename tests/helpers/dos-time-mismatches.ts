/**
 * Run with TZ set (tests/zip/dos-time.test.ts): prints, as JSON, the DOS date/time pairs whose
 * conversion (the C library's or Date's, cached per hour) differs from building the Date from
 * local fields. A process per zone, as the cache belongs to the zone the process started in.
 * Times that occur twice (the hour repeated when clocks go back) are left out: the runtime takes
 * the first, mktime (and so Info-ZIP and Python) may take either.
 */
import { libc } from '../../src/base/libc.ts';
import { dosDateTimeToDate } from '../../src/zip/dos-time.ts';

function reference(dosDate: number, dosTime: number): number {
  const year = ((dosDate >> 9) & 0x7f) + 1980;
  const month = Math.max(1, (dosDate >> 5) & 0x0f);
  const day = Math.max(1, dosDate & 0x1f);
  return new Date(year, month - 1, day, (dosTime >> 11) & 0x1f, (dosTime >> 5) & 0x3f, (dosTime & 0x1f) * 2).getTime();
}

const samples: [number, number][] = [];
// Every minute of the small hours of spring and autumn days, where offsets change, in a few years.
for (const year of [1995, 2011, 2024]) {
  for (const month of [3, 4, 9, 10, 11]) {
    for (let day = 1; day <= 31; day++) {
      for (let hour = 0; hour < 4; hour++)
        for (let minute = 0; minute < 60; minute++)
          samples.push([((year - 1980) << 9) | (month << 5) | day, (hour << 11) | (minute << 5) | 7]);
    }
  }
}
// And any 32 bits at all, out-of-range fields included.
let seed = 20261123;
const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
for (let i = 0; i < 20_000; i++) samples.push([next() & 0xffff, next() & 0xffff]);
/** Whether the local time at `ms` also occurs half an hour or an hour earlier or later. */
function ambiguous(ms: number): boolean {
  const fields = (at: number) => {
    const d = new Date(at);
    return `${d.getFullYear()}-${d.getMonth()}-${d.getDate()} ${d.getHours()}:${d.getMinutes()}:${d.getSeconds()}`;
  };
  const here = fields(ms);
  return [-3_600_000, -1_800_000, 1_800_000, 3_600_000].some((shift) => fields(ms + shift) === here);
}

const clear = samples.filter(([date, time]) => !ambiguous(reference(date, time)));
const wrong = clear.filter(([date, time]) => dosDateTimeToDate(date, time).getTime() !== reference(date, time));
console.log(JSON.stringify({ native: libc() !== undefined, checked: clear.length, wrong: wrong.slice(0, 5) }));
