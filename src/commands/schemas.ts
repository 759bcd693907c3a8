/** Schema pieces several commands share, so the same parameter reads the same everywhere. */
import { ZipfsError } from '../base/errors.ts';
import * as v from 'valibot';
import { CODE_PAGES } from '../zip/index.ts';

export const sessionParam = v.optional(
  v.pipe(v.string(), v.description('Session name or id (from open); may be left out while only one is open')),
);

export const workspacePathParam = (description: string) =>
  v.optional(v.pipe(v.string(), v.description(description)), '/');

/** open and inspect's encoding of entry names that carry no UTF-8 flag (zip/names.ts). */
export const nameEncodingParam = v.optional(
  v.pipe(v.picklist(CODE_PAGES), v.description('Of names without the UTF-8 flag (default: UTF-8, else cp437)')),
);

export const backupParam = v.optional(v.pipe(v.boolean(), v.description('Keep <zip>.bak')), true);

/** Output fields: every one described, counts and sizes as integers, so generated clients get honest types. */
export const count = (description: string) => v.pipe(v.number(), v.integer(), v.description(description));
export const text = (description: string) => v.pipe(v.string(), v.description(description));
export const flag = (description: string) => v.pipe(v.boolean(), v.description(description));
export const paths = (description: string) => v.pipe(v.array(v.string()), v.description(description));

/**
 * Text from an archive or a file system shown as one item: an entry or file name, a path, a zip's
 * comment. Any character may be in it, escape sequences and newlines too, so the CLI's human output
 * shows it quoted when it holds one (cli/terminal-view.ts); JSON carries it exactly. Output fields
 * holding such text use name() or names(), never text().
 */
export const NAME = v.string();
export const name = (description: string) => v.pipe(NAME, v.description(description));
export const names = (description: string) => v.pipe(v.array(NAME), v.description(description));

/** `paths` beside `path` (delete, move, edit): more paths or globs in one call (issue 31). */
export const morePathsParam = (more: string) =>
  v.optional(v.pipe(v.array(v.string()), v.description(`Paths or globs (*.x at any depth, a/**); ${more}`)));

/** A call with several paths names at least one, in `path` or in `paths`. */
export function assertSomePath(path: string | undefined, paths: string[] | undefined, verb: string): void {
  if (path === undefined && !paths?.length)
    throw new ZipfsError('INVALID_INPUT', `Invalid input: give path, or paths (a list of paths or globs), to ${verb}.`);
}

/** One path's result in an answer about several, with what the command adds about it. */
const pathResult = <T extends v.ObjectEntries>(more: T) =>
  v.object({
    path: name('Normalised'),
    ...more,
    failure: v.optional(text('Why not')),
  });

/**
 * The answer's part about several paths: each one's result, cut to what fits the answer (a change
 * cannot be asked for again, so there is no next page), and the counts of all.
 */
export const manyResults = <T extends v.ObjectEntries = Record<never, never>>(more = {} as T) => ({
  results: v.optional(v.pipe(v.array(pathResult(more)), v.description('One per path'))),
  count: v.optional(count('Done')),
  truncated: v.optional(flag('results cut')),
});

/** Human lines for several paths' results, failures said as such. */
export function renderResults<R extends { path: string; failure?: string }>(
  results: R[],
  done: (r: R) => string,
): string {
  return results.map((r) => (r.failure === undefined ? done(r) : `Failed ${r.path}: ${r.failure}`)).join('\n');
}

/** The CLI's stderr line when the list of results was cut. */
export function resultsCutNote(out: { truncated?: boolean; results?: unknown[] }, done: string) {
  return out.truncated ? `zipfs: the answer lists the first ${out.results?.length ?? 0} paths ${done}` : undefined;
}
