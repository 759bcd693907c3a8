import { ZipfsError, quote } from '../base/errors.ts';
import type { LazyEntries } from '../session/lazy-entries.ts';
import { lockedEntry, mayBeLocked } from '../zip/index.ts';

/**
 * The entries that paths and globs name: a path names its entry, and for a
 * folder everything below it; a glob without "/" matches names at any depth
 * (`*.xml`), one with "/" the whole path (`word/**`), as grep's glob does.
 * A pattern that names nothing is an error: a typo must not pass silently.
 */
export function matchEntries(lazy: LazyEntries, patterns: readonly string[]): number[] {
  const chosen: number[] = [];
  for (const raw of patterns) {
    const pattern = raw.replace(/^\.?\/+/, '').replace(/\/+$/, '');
    const before = chosen.length;
    const exact = lazy.indexOf(pattern);
    if (exact >= 0) chosen.push(exact);
    if (pattern === '' || exact < 0 || lazy.type(exact) === 'dir') {
      lazy.forEachUnder(pattern, (index) => {
        chosen.push(index);
      });
    }
    if (chosen.length === before && /[*?[{]/.test(pattern)) {
      const glob = new Bun.Glob(pattern);
      const whole = pattern.includes('/');
      for (let i = 0; i < lazy.count; i++) {
        const own = lazy.paths[i]!;
        if (own !== '' && glob.match(whole ? own : own.slice(own.lastIndexOf('/') + 1))) chosen.push(i);
      }
    }
    if (chosen.length === before)
      throw new ZipfsError(
        'PATH_NOT_FOUND',
        `Nothing in the archive matches ${quote(raw)}; give an entry's path, a folder, or a glob (*.xml matches ` +
          `names at any depth, word/** a whole path). List the entries with ls or inspect.`,
      );
  }
  return chosen;
}

/** Every entry but the encrypted ones zipfs has no key for (encryption.ts), in index order. */
export function unlockedIndexes(lazy: LazyEntries): number[] {
  const { directory } = lazy;
  const found: number[] = [];
  for (let i = 0; i < lazy.count; i++)
    if (!mayBeLocked(directory.flags(i)) || !lockedEntry(directory.entry(i))) found.push(i);
  return found;
}
