/**
 * The README's table of settings: every ZIPFS_* variable read through
 * readSetting (src/base/env-setting.ts), with its default, what it takes and
 * what it sets, from the settings themselves (src/rules/limits.ts and the two
 * read outside it).
 */
import type { EnvSetting } from '../../src/base/env-setting.ts';
import { NATIVE_SETTING } from '../../src/base/libc.ts';
import { PROGRESS_DELAY_SETTING } from '../../src/cli/progress-line.ts';
import { LIMIT_SETTINGS } from '../../src/rules/limits.ts';
import { cell, code, table } from './markdown.ts';

const SETTINGS: EnvSetting<unknown>[] = [...Object.values(LIMIT_SETTINGS), NATIVE_SETTING, PROGRESS_DELAY_SETTING];

/** A default as people read it: a whole number of KiB, MiB or GiB is shown in that unit too. */
function shown(value: unknown): string {
  if (typeof value !== 'number' || value < 1024 || value % 1024 !== 0) return String(value);
  const units = ['KiB', 'MiB', 'GiB', 'TiB'];
  let size = value / 1024;
  let unit = 0;
  while (size >= 1024 && size % 1024 === 0 && unit < units.length - 1) {
    size /= 1024;
    unit += 1;
  }
  return `${value} (${size} ${units[unit]})`;
}

export function settingsTable(): string {
  const rows = SETTINGS.map((setting) => {
    if (!setting.description) throw new Error(`${setting.env} has no description for the README`);
    return [code(setting.env), shown(setting.default), cell(setting.takes), cell(setting.description)];
  });
  return table(['variable', 'default', 'takes', 'what it sets'], rows);
}
