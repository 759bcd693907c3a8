import { type EnvSetting, numberSetting, readSetting } from '../base/env-setting.ts';

/**
 * Resource and safety limits. Each has a default that serves real work and an
 * environment variable to override it; README.md's table of them is generated
 * from this one (bun scripts/readme-blocks.ts), so descriptions are written for users.
 */

const KiB = 1024;
const MiB = 1024 * KiB;
const GiB = 1024 * MiB;

interface LimitSpec {
  env: string;
  default: number;
  /** The smallest value allowed: 1 unless said (a limit of 0 would forbid everything). */
  min?: number;
  max?: number;
  integer?: boolean;
  description: string;
}

export const LIMIT_SPECS = {
  maxEntries: {
    env: 'ZIPFS_MAX_ENTRIES',
    default: 100_000,
    description: 'Entries in one archive (more: ZIP_BOMB_DETECTED)',
  },
  maxExtractedBytes: {
    env: 'ZIPFS_MAX_EXTRACTED_BYTES',
    default: 4 * GiB,
    description: 'Bytes extracted from one archive (more: ZIP_BOMB_DETECTED)',
  },
  maxRatio: {
    env: 'ZIPFS_MAX_RATIO',
    default: 100,
    description: 'Uncompressed:compressed ratio of the whole archive (more: ZIP_BOMB_DETECTED)',
  },
  maxEntryRatio: {
    env: 'ZIPFS_MAX_ENTRY_RATIO',
    default: 500,
    description: 'Uncompressed:compressed ratio of one entry (more: ZIP_BOMB_DETECTED)',
  },
  ratioFloorBytes: {
    env: 'ZIPFS_RATIO_FLOOR_BYTES',
    default: 16 * MiB,
    description: 'Ratios are checked only once the archive (or entry) expands past this size',
  },
  readDefaultBytes: {
    env: 'ZIPFS_READ_DEFAULT_LIMIT',
    default: 256 * KiB,
    description:
      'Bytes read returns when no limit is given (limit may ask for up to 64 MiB; over MCP a page is also cut to ' +
      'fit the answer)',
  },
  maxSessions: {
    env: 'ZIPFS_MAX_SESSIONS',
    default: 100,
    description: 'Sessions open at once (more: LIMIT_EXCEEDED on open)',
  },
  maxTotalBytes: {
    env: 'ZIPFS_MAX_TOTAL_BYTES',
    default: 16 * GiB,
    description:
      "Bytes extracted into all workspaces together, counted from the sessions' records (more: LIMIT_EXCEEDED on open)",
  },
  grepBudgetMs: {
    env: 'ZIPFS_GREP_TIME_BUDGET_MS',
    default: 5000,
    description:
      "Milliseconds one grep may take before it returns what it found, and one edit's patterns before it is refused " +
      '(LIMIT_EXCEEDED)',
  },
  lockWaitMs: {
    env: 'ZIPFS_LOCK_WAIT_MS',
    default: 5000,
    min: 0,
    description:
      'Milliseconds a mutation waits for another process holding the session (or a sync for one syncing the same ' +
      'zip) before LOCKED (0: do not wait)',
  },
  keepBackups: {
    env: 'ZIPFS_KEEP_BACKUPS',
    default: 5,
    min: 0,
    integer: true,
    description:
      'Older backups sync keeps besides ZIP.bak, numbered ZIP.1.bak, ZIP.2.bak, ... (numbers grow; the oldest beyond ' +
      'this are removed; 0: ZIP.bak only)',
  },
  // open splits a large archive between this thread and one worker: there is no third share to give.
  threads: {
    env: 'ZIPFS_THREADS',
    default: 2,
    min: 1,
    max: 2,
    integer: true,
    description: 'Threads open extracts a large archive on (1: this one only)',
  },
} as const satisfies Record<string, LimitSpec>;

export type Limits = { -readonly [K in keyof typeof LIMIT_SPECS]: number };

/** Each limit as the setting it is read through: its variable, default, what it takes and what it sets. */
export const LIMIT_SETTINGS = Object.fromEntries(
  (Object.entries(LIMIT_SPECS) as [keyof Limits, LimitSpec][]).map(([key, spec]) => [
    key,
    numberSetting({
      env: spec.env,
      default: spec.default,
      min: spec.min ?? 1,
      max: spec.max,
      integer: spec.integer,
      description: spec.description,
    }),
  ]),
) as Record<keyof Limits, EnvSetting<number>>;

/** Reads every limit from the environment. A malformed value is an error rather
 * than a silent fallback (env-setting.ts): a limit someone set and did not get is a surprise. */
export function loadLimits(env: NodeJS.ProcessEnv = process.env): Limits {
  const limits = {} as Limits;
  for (const key of Object.keys(LIMIT_SETTINGS) as (keyof Limits)[])
    limits[key] = readSetting(env, LIMIT_SETTINGS[key]);
  return limits;
}
