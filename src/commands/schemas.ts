/** Schema pieces several commands share, so the same parameter reads the same everywhere. */
import * as v from 'valibot';

export const sessionParam = v.optional(v.pipe(v.string(), v.description('Name or id')));

export const workspacePathParam = (description: string) =>
  v.optional(v.pipe(v.string(), v.description(description)), '/');

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
