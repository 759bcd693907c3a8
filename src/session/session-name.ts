import path from 'node:path';
import fs from 'node:fs';
import { ZipfsError, quote } from '../base/errors.ts';
import { invocation } from '../base/message-marks.ts';
import { sessionPaths } from './data-dir.ts';

/** Session names become folder names and CLI arguments: a safe, portable set. */
export const SESSION_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function assertValidName(name: string): void {
  if (!SESSION_NAME_PATTERN.test(name)) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Invalid argument name: ${quote(name)} is not a usable session name; use 1-64 letters, digits, ".", "_" or ` +
        `"-", starting with a letter or digit.`,
    );
  }
}

/** `q4-report.zip` -> `q4-report`; characters outside the safe set become `-`. */
export function deriveName(zipPath: string): string {
  const base = path.basename(zipPath).replace(/\.[^.]*$/, '');
  const cleaned = base
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 56)
    .replace(/[.-]+$/, '');
  return cleaned === '' ? 'session' : cleaned;
}

/** The derived name, or with `-2`, `-3`, ... when it is taken. */
export function freeName(base: string, taken: (name: string) => boolean): string {
  if (!taken(base)) return base;
  for (let n = 2; ; n++) {
    const candidate = `${base}-${n}`;
    if (!taken(candidate)) return candidate;
  }
}

/** NAME_COLLISION when a session of this name exists in `home`. */
export function assertNameFree(home: string, name: string): void {
  if (fs.existsSync(sessionPaths(home, name).dir)) {
    throw new ZipfsError(
      'NAME_COLLISION',
      `A session named "${name}" is already open; choose another name, or close that session first ` +
        `(${invocation('close', { session: name })}).`,
    );
  }
}
