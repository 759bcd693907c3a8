import { describe, expect, it } from 'bun:test';
import { choiceSetting, numberSetting, readSetting } from '../src/base/env-setting.ts';
import { LIMIT_SPECS, loadLimits } from '../src/rules/limits.ts';
import { NATIVE_SETTING } from '../src/base/libc.ts';

const threads = numberSetting({ env: 'ZIPFS_THREADS', default: 2, min: 1, max: 2, integer: true });
const delay = numberSetting({ env: 'ZIPFS_PROGRESS_DELAY_MS', default: 1000, min: 0 });
const read = <T>(setting: Parameters<typeof readSetting<T>>[1], value: string | undefined) => {
  try {
    return readSetting({ [setting.env]: value }, setting);
  } catch (error) {
    return (error as { code: string }).code;
  }
};

describe('environment settings', () => {
  it.each([
    [threads.env, undefined, 2, threads],
    [threads.env, '', 2, threads],
    [threads.env, '  ', 2, threads],
    [threads.env, '1', 1, threads],
    [threads.env, ' 2\n', 2, threads],
    [threads.env, '0', 'INVALID_INPUT', threads],
    [threads.env, '3', 'INVALID_INPUT', threads],
    [threads.env, '1.5', 'INVALID_INPUT', threads],
    [threads.env, 'two', 'INVALID_INPUT', threads],
    [delay.env, '0', 0, delay],
    [delay.env, '250.5', 250.5, delay],
    [delay.env, '-1', 'INVALID_INPUT', delay],
    [delay.env, 'Infinity', 'INVALID_INPUT', delay],
    [NATIVE_SETTING.env, '0', '0', NATIVE_SETTING],
    [NATIVE_SETTING.env, '1', '1', NATIVE_SETTING],
    [NATIVE_SETTING.env, undefined, '1', NATIVE_SETTING],
    [NATIVE_SETTING.env, 'yes', 'INVALID_INPUT', NATIVE_SETTING],
    [NATIVE_SETTING.env, '01', 'INVALID_INPUT', NATIVE_SETTING],
  ] as const)('%s=%p reads as %p', (_name, value, expected, setting) => {
    expect(read(setting as never, value)).toBe(expected);
  });

  it('names the variable, the value, what it takes and the default', () => {
    const setting = choiceSetting({ env: 'ZIPFS_X', default: 'a', choices: ['a', 'b'], takes: 'a or b' });
    expect(() => readSetting({ ZIPFS_X: 'c\n' }, setting)).toThrow(
      'Environment variable ZIPFS_X="c\\n" is malformed: it takes a or b. Correct it, or unset it to use the ' +
        'default (a).',
    );
  });

  it('reads every limit through it, ZIPFS_THREADS included', () => {
    expect(loadLimits({}).threads).toBe(LIMIT_SPECS.threads.default);
    expect(loadLimits({ ZIPFS_THREADS: '1' }).threads).toBe(1);
    expect(() => loadLimits({ ZIPFS_THREADS: 'abc' })).toThrow('ZIPFS_THREADS="abc" is malformed: it takes 1 or 2');
    expect(() => loadLimits({ ZIPFS_LOCK_WAIT_MS: '-1' })).toThrow('it takes a number of at least 0');
  });
});
