/**
 * A filter's value must narrow. `open --only "$ONLY"` or `extract "$FILES"`
 * with the variable unset passes "" (or blanks), which the entry matcher
 * reads as the archive's root: everything. So a blank filter value, or one
 * naming the root ("/", "./"), is INVALID_INPUT, never "all": to take
 * everything, leave the filter out. Paths that mean a place ('' for the root
 * in ls, grep, diff) are not filters and keep their documented meaning.
 */
import { ZipfsError, quote } from '../base/errors.ts';

/** What the entry matcher (open-lazy.ts matchEntries) reduces a value to before matching: '' is the root. */
const rootless = (value: string) => value.replace(/^\.?\/+/, '').replace(/\/+$/, '');

/**
 * Refuses a blank value, or (for a filter of archive entries) one that names the whole archive.
 * `without` says what leaving the filter out does, for the message.
 */
export function assertNarrowing(
  values: readonly string[] | undefined,
  name: string,
  without: string,
  options: { matchesEntries: boolean } = { matchesEntries: true },
): void {
  for (const value of values ?? []) {
    if (value.trim() === '') {
      throw new ZipfsError(
        'INVALID_INPUT',
        `Invalid argument ${name}: ${quote(value)} is empty, which is what an unset shell variable gives ("$VAR"), ` +
          `and zipfs does not take it as "everything". Give a path, folder or glob, or leave it out to ${without}.`,
      );
    }
    if (options.matchesEntries && rootless(value) === '') {
      throw new ZipfsError(
        'INVALID_INPUT',
        `Invalid argument ${name}: ${quote(value)} names the whole archive, which is no filter. Give a path, folder ` +
          `or glob, or leave it out to ${without}.`,
      );
    }
  }
}
