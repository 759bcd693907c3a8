/**
 * MS-DOS date and time fields: local time without a zone, 2-second steps.
 * Info-ZIP and most tools read them as the machine's local time; so do we.
 *
 * Local time comes from the C library where it can be loaded (native/libc.ts):
 * the runtime's first local-time Date sets up ICU's time zones, 4-5 ms once per
 * process, a tenth of a small sync; localtime_r and mktime read the zone file
 * in microseconds, and are what Info-ZIP and Python use, so all three agree.
 * Elsewhere (or with ZIPFS_NATIVE=0) Date does the same.
 */
import { libc, type LocalTime } from '../base/libc.ts';

/** Epoch milliseconds of a local time; fields out of range carry over, as Date does. */
function fromLocal(time: LocalTime): number {
  const seconds = libc()?.fromLocalTime(time);
  if (seconds !== undefined && !Number.isNaN(seconds)) return seconds * 1000;
  return new Date(time.year, time.month - 1, time.day, time.hours, time.minutes, time.seconds).getTime();
}

/** The local time at epoch milliseconds `ms`. */
function toLocal(ms: number): LocalTime {
  const native = libc();
  if (native) return native.localTime(Math.floor(ms / 1000));
  const date = new Date(ms);
  return {
    year: date.getFullYear(),
    month: date.getMonth() + 1,
    day: date.getDate(),
    hours: date.getHours(),
    minutes: date.getMinutes(),
    seconds: date.getSeconds(),
  };
}

function dosFields(dosDate: number, hours: number, minutes: number, seconds: number): LocalTime {
  return {
    year: ((dosDate >> 9) & 0x7f) + 1980,
    month: Math.max(1, (dosDate >> 5) & 0x0f),
    day: Math.max(1, dosDate & 0x1f),
    hours,
    minutes,
    seconds,
  };
}

/**
 * Start of each local hour seen so far (keyed by the DOS date and hour), in epoch ms, or NaN for
 * an hour in which the zone's offset changes (Newfoundland switched at 00:01, Chatham at 2:45,
 * Lord Howe by half an hour). Within an hour of one offset, minutes and seconds add as plain
 * milliseconds, so one conversion per hour gives what converting every time would: archives hold
 * thousands of entries written within a few hours (tests/zip/dos-time.test.ts checks it, zone by zone).
 */
const hourStarts = new Map<number, number>();

export function dosDateTimeToDate(dosDate: number, dosTime: number): Date {
  const hours = (dosTime >> 11) & 0x1f;
  const minutes = (dosTime >> 5) & 0x3f;
  const seconds = (dosTime & 0x1f) * 2;
  // Out-of-range fields (hour 24+, minute 60+) roll over into the next hour or day: no shortcut for those.
  if (hours > 23 || minutes > 59 || seconds > 59)
    return new Date(fromLocal(dosFields(dosDate, hours, minutes, seconds)));
  const key = dosDate * 32 + hours;
  let hourStart = hourStarts.get(key);
  if (hourStart === undefined) {
    hourStart = fromLocal(dosFields(dosDate, hours, 0, 0));
    const start = toLocal(hourStart);
    const end = toLocal(hourStart + 3_599_000);
    const oneOffset =
      start.hours === hours &&
      start.minutes === 0 &&
      start.seconds === 0 &&
      end.hours === hours &&
      end.minutes === 59 &&
      end.seconds === 59;
    if (!oneOffset) hourStart = Number.NaN;
    if (hourStarts.size >= 100_000) hourStarts.clear(); // scattered times must not grow it without end
    hourStarts.set(key, hourStart);
  }
  if (Number.isNaN(hourStart)) return new Date(fromLocal(dosFields(dosDate, hours, minutes, seconds)));
  return new Date(hourStart + minutes * 60_000 + seconds * 1000);
}

/** Encodes a local time as DOS fields, clamped to the format's 1980-2107 range. */
export function dateToDosDateTime(date: Date): { dosDate: number; dosTime: number } {
  const local = toLocal(date.getTime());
  if (local.year < 1980) return { dosDate: (1 << 5) | 1, dosTime: 0 };
  if (local.year > 2107) return { dosDate: (127 << 9) | (12 << 5) | 31, dosTime: (23 << 11) | (59 << 5) | 29 };
  return {
    dosDate: ((local.year - 1980) << 9) | (local.month << 5) | local.day,
    dosTime: (local.hours << 11) | (local.minutes << 5) | (local.seconds >> 1),
  };
}
