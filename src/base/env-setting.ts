/**
 * Settings zipfs reads from ZIPFS_* environment variables, each parsed where it
 * is first read, through readSetting. A malformed value is INVALID_INPUT naming
 * the variable and what it takes, never a silent fallback to the default: a
 * setting someone made and did not get is a surprise found much later.
 */
import { ZipfsError, quote } from './errors.ts';

export interface EnvSetting<T> {
  env: string;
  default: T;
  /** What the variable takes, as the message says it: "1 or 2", "a number of at least 0". */
  takes: string;
  /** What it sets, for the README's table of settings (scripts/readme/settings-table.ts). */
  description?: string;
  /** The value `raw` (trimmed, not empty) sets, or undefined when it is malformed. */
  parse(raw: string): T | undefined;
}

/** The setting's value in `env`: its default when the variable is unset or empty, as shells leave `ZIPFS_X=`. */
export function readSetting<T>(env: NodeJS.ProcessEnv, setting: EnvSetting<T>): T {
  const raw = env[setting.env];
  if (raw === undefined || raw.trim() === '') return setting.default;
  const value = setting.parse(raw.trim());
  if (value === undefined) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Environment variable ${setting.env}=${quote(raw)} is malformed: it takes ${setting.takes}. Correct it, or unset it to use the default (${String(setting.default)}).`,
    );
  }
  return value;
}

/** A number from `min` (and up to `max`), whole when `integer`; JavaScript's number syntax, as `Number()` reads it. */
export function numberSetting(spec: {
  env: string;
  default: number;
  min: number;
  max?: number;
  integer?: boolean;
  description?: string;
}): EnvSetting<number> {
  const kind = spec.integer ? 'a whole number' : 'a number';
  const takes =
    spec.max === undefined
      ? `${kind} of at least ${spec.min}`
      : spec.max === spec.min + 1 && spec.integer
        ? `${spec.min} or ${spec.max}`
        : `${kind} from ${spec.min} to ${spec.max}`;
  return {
    env: spec.env,
    default: spec.default,
    takes,
    description: spec.description,
    parse(raw) {
      const value = Number(raw);
      if (!Number.isFinite(value) || value < spec.min || (spec.max !== undefined && value > spec.max)) return undefined;
      return spec.integer && !Number.isInteger(value) ? undefined : value;
    },
  };
}

/** One of a few exact words, such as "0" or "1"; `takes` says what each means. */
export function choiceSetting<T extends string>(spec: {
  env: string;
  default: T;
  choices: readonly T[];
  takes: string;
  description?: string;
}): EnvSetting<T> {
  return {
    env: spec.env,
    default: spec.default,
    takes: spec.takes,
    description: spec.description,
    parse: (raw) => spec.choices.find((choice) => choice === raw),
  };
}
