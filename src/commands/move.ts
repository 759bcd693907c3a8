import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { moveWorkspacePath } from '../files/move.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { moveMany } from '../workspace/move-many.ts';
import { loadLimits } from '../rules/limits.ts';
import { plural } from '../format/units.ts';
import { takePage } from '../table/paging.ts';
import { flag, manyResults, morePathsParam, name, renderResults, resultsCutNote, sessionParam } from './schemas.ts';
import { assertSomePath } from './schemas.ts';
import { withBeneath } from '../files/beneath.ts';
import { ZipfsError } from '../base/errors.ts';
import type { Workspace } from '../workspace/workspace.ts';

const GLOB = /[*?[{]/;

/** Whether `input` names an item of the workspace (folder or zip) as it is, not as a pattern. */
function namesItself(workspace: Workspace, input: string): boolean {
  return withBeneath(workspace.root, (beneath) => {
    try {
      workspace.stat(beneath, input);
      return true;
    } catch (error) {
      if (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND') return false;
      throw error;
    }
  });
}

export const move = defineCommand({
  name: 'move',
  title: 'Move',
  description:
    'Rename a file or folder. paths (globs too), or to ending in /: each moves into folder to, as mv; all checked ' +
    'first.',
  input: v.strictObject({
    session: sessionParam,
    from: v.optional(v.pipe(v.string(), v.description('Existing path'))),
    to: v.pipe(v.string(), v.description('New path, or folder')),
    paths: morePathsParam('into to'),
    overwrite: v.optional(v.pipe(v.boolean(), v.description('Replace the target')), false),
  }),
  output: v.object({
    moved: flag('All done'),
    from: v.optional(name('Normalised')),
    to: v.optional(name('Normalised')),
    ...manyResults({ to: v.optional(name('Normalised')) }),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  session: 'write',
  cli: {
    message: true,
    workspacePaths: ['from', 'to', 'paths'],
    positionals: ['from', 'to', 'paths'],
    // Positional only: `zipfs mv a b c DEST/`, the last word the folder, as mv takes it.
    viaOptions: ['paths'],
    short: { session: 's' },
    aliases: ['mv'],
    example: "zipfs mv data/old.csv archive/2024.csv; zipfs mv a.txt b.txt 'logs/*.log' old/",
    fromCli(input) {
      const more = input.paths as string[] | undefined;
      if (!more?.length) return;
      const words = [input.from, input.to, ...more] as string[];
      input.to = words.pop();
      input.paths = words;
      delete input.from;
    },
  },
  check: (input) => assertSomePath(input.from, input.paths, 'move'),
  async run(input, context) {
    const { session } = context;
    const workspace = workspaceOf(session);
    const change = { home: context.home, limits: loadLimits(context.env) };
    // One path, not a pattern: a name holding glob characters that exists as it is names itself (as expand-paths.ts).
    const one = input.paths === undefined && (!GLOB.test(input.from!) || namesItself(workspace, input.from!));
    if (one && !input.to.endsWith('/')) {
      // Both ends prepared, so a target only in the archive is on disk to refuse or replace.
      await workspace.prepareChange([input.from!, input.to], change);
      const moved = moveWorkspacePath(session.contents, input.from!, input.to, input.overwrite);
      return { moved: true, ...moved };
    }
    const sources = [...(input.from === undefined ? [] : [input.from]), ...(input.paths ?? [])];
    const results = await moveMany(workspace, { sources, into: input.to, overwrite: input.overwrite, change });
    const failed = results.filter((r) => r.failure !== undefined).length;
    if (one && failed === 0) return { moved: true, from: results[0]!.path, to: results[0]!.to };
    // A move cannot be asked for again: the list is cut to what fits, with the counts whole.
    return takePage(results, {}, context.maxAnswerBytes, (page, next) => ({
      moved: failed === 0,
      results: page,
      count: results.length - failed,
      ...(next === undefined ? {} : { truncated: true }),
    }));
  },
  render: (out) =>
    out.results
      ? renderResults(out.results, (r) => `Moved ${r.path} to ${r.to}.`) || `Moved ${plural(out.count ?? 0, 'path')}.`
      : `Moved ${out.from} to ${out.to}.`,
  note: (out) => resultsCutNote(out, 'moved'),
});
