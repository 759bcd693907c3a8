/**
 * MS-DOS date and time fields: local time without a zone, 2-second steps.
 * Info-ZIP and most tools read them as the machine's local time; so do we.
 */

export function dosDateTimeToDate(dosDate: number, dosTime: number): Date {
  const year = ((dosDate >> 9) & 0x7f) + 1980;
  const month = Math.max(1, (dosDate >> 5) & 0x0f);
  const day = Math.max(1, dosDate & 0x1f);
  const hours = (dosTime >> 11) & 0x1f;
  const minutes = (dosTime >> 5) & 0x3f;
  const seconds = (dosTime & 0x1f) * 2;
  return new Date(year, month - 1, day, hours, minutes, seconds);
}

/** Encodes a local time as DOS fields, clamped to the format's 1980-2107 range. */
export function dateToDosDateTime(date: Date): { dosDate: number; dosTime: number } {
  const year = date.getFullYear();
  if (year < 1980) return { dosDate: (1 << 5) | 1, dosTime: 0 };
  if (year > 2107) return { dosDate: (127 << 9) | (12 << 5) | 31, dosTime: (23 << 11) | (59 << 5) | 29 };
  return {
    dosDate: ((year - 1980) << 9) | ((date.getMonth() + 1) << 5) | date.getDate(),
    dosTime: (date.getHours() << 11) | (date.getMinutes() << 5) | (date.getSeconds() >> 1),
  };
}
