import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { deleteWorkspacePath } from '../files/edit.ts';
import { ZipfsError } from '../base/errors.ts';
import { normaliseToolPath } from '../files/safe-path.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { deleteMany } from '../workspace/delete-many.ts';
import { plural } from '../format/units.ts';
import { takePage } from '../table/paging.ts';
import { flag, name, sessionParam } from './schemas.ts';
import { assertSomePath, manyResults, morePathsParam, renderResults, resultsCutNote } from './schemas.ts';

export const del = defineCommand({
  name: 'delete',
  title: 'Delete',
  description:
    'Delete files or folders (a link, never its target). paths: several, globs too; all checked first, none ' +
    'deleted if one fails.',
  input: v.strictObject({
    session: sessionParam,
    path: v.optional(v.pipe(v.string(), v.description('From the workspace root'))),
    paths: morePathsParam('a glob takes folders only with recursive'),
    recursive: v.optional(v.pipe(v.boolean(), v.description('For a non-empty folder')), false),
  }),
  output: v.object({
    deleted: flag('All done'),
    path: v.optional(name('Normalised')),
    ...manyResults(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  session: 'write',
  cli: {
    message: true,
    workspacePaths: ['path', 'paths'],
    positionals: ['path', 'paths'],
    short: { session: 's', recursive: 'r' },
    example: "zipfs delete data/old -r; zipfs delete a.txt b.txt 'ppt/slides/slide3*'",
  },
  check: (input) => assertSomePath(input.path, input.paths, 'delete'),
  async run(input, context) {
    const { session } = context;
    if (input.paths === undefined && !/[*?[{]/.test(input.path!)) {
      // One path, answered as before: entries only in the archive are deleted there; what is on disk, from the folder.
      const fromZip = workspaceOf(session).removeArchived(input.path!, input.recursive);
      let deleted: string;
      try {
        deleted = deleteWorkspacePath(session.contents, input.path!, input.recursive);
      } catch (error) {
        if (!(fromZip > 0 && error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND')) throw error;
        deleted = normaliseToolPath(input.path!);
      }
      return { deleted: true, path: deleted };
    }
    const patterns = [...(input.path === undefined ? [] : [input.path]), ...(input.paths ?? [])];
    const results = deleteMany(workspaceOf(session), patterns, input.recursive);
    const failed = results.filter((r) => r.failure !== undefined).length;
    // A deletion cannot be asked for again: the list is cut to what fits, with the counts whole.
    return takePage(results, {}, context.maxAnswerBytes, (page, next) => ({
      deleted: failed === 0,
      results: page,
      count: results.length - failed,
      ...(next === undefined ? {} : { truncated: true }),
    }));
  },
  render: (out) =>
    out.results
      ? renderResults(out.results, (r) => `Deleted ${r.path}.`) || `Deleted ${plural(out.count ?? 0, 'path')}.`
      : `Deleted ${out.path}.`,
  note: (out) => resultsCutNote(out, 'deleted'),
});
