import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { plural } from '../format/units.ts';
import { walk } from '../workspace/listing.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { withBeneath } from '../files/beneath.ts';
import { ZipfsError, quote } from '../base/errors.ts';
import { quoteName } from '../format/quote-name.ts';
import {
  limitParam,
  pageFields,
  nextOffsetField,
  offsetParam,
  pageNote,
  takePage,
  textChars,
  totalField,
} from '../table/paging.ts';
import { count, sessionParam, text, workspacePathParam } from './schemas.ts';

export const tree = defineCommand({
  name: 'tree',
  title: 'Tree',
  description: 'A workspace folder as a tree, entries still only in the zip included.',
  input: v.strictObject({
    session: sessionParam,
    path: workspacePathParam('Start folder'),
    max_depth: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.description('Levels; default all'))),
    offset: offsetParam,
    limit: limitParam('lines'),
  }),
  output: v.object({
    tree: text("Drawn: this page's lines"),
    file_count: count('In the whole tree'),
    dir_count: count('In the whole tree'),
    total: totalField('lines'),
    next_offset: nextOffsetField,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  session: 'read',
  cli: {
    workspacePaths: ['path'],
    fromCurrentFolder: true,
    positionals: ['path'],
    short: { session: 's' },
    example: 'zipfs tree --max-depth 2',
  },
  run(input, context) {
    const { session } = context;
    const workspace = workspaceOf(session);
    return withBeneath(session.contents, (beneath) => {
      const start = workspace.stat(beneath, input.path);
      if (start.archived ? start.archived.type !== 'dir' : !start.disk!.stats.isDirectory())
        throw new ZipfsError(
          'INVALID_INPUT',
          `Invalid argument path: ${quote(start.relative)} is a file, not a folder; tree starts from a folder.`,
        );
      // The drawing is one line per item on every surface: a name that would break or reorder its line
      // is quoted in it, as git quotes paths (ls gives the exact names).
      const lines = [start.relative === '' ? '.' : quoteName(`${start.relative}/`)];
      const openAtDepth: boolean[] = [];
      let fileCount = 0;
      let dirCount = 0;
      const maxDepth = input.max_depth ?? Infinity;
      // The whole tree is walked, to count it all as the schema says; only max_depth levels are drawn.
      walk(
        start.disk ? beneath.folder(start.relative) : undefined,
        {
          maxDepth: Infinity,
          archiveSymlinks: new Set(session.record.symlinks),
          base: start.relative,
          archived: (relative) => workspace.archivedChildren(relative),
        },
        (item, depth, isLast) => {
          if (item.type === 'dir') dirCount++;
          else fileCount++;
          if (depth > maxDepth) return;
          openAtDepth[depth] = !isLast;
          let prefix = '';
          for (let d = 1; d < depth; d++) prefix += openAtDepth[d] ? '│   ' : '    ';
          const name = item.path.slice(item.path.lastIndexOf('/') + 1);
          lines.push(`${prefix}${isLast ? '└── ' : '├── '}${quoteName(item.type === 'dir' ? `${name}/` : name)}`);
        },
      );
      // Pages are runs of the drawing's lines: joined with newlines, the pages give the whole drawing.
      const build = (page: string[], next: number | undefined) => ({
        tree: page.join('\n'),
        file_count: fileCount,
        dir_count: dirCount,
        ...pageFields(lines.length, input.offset, next),
      });
      return takePage(lines, input, context.maxAnswerBytes, build, (line) => textChars(`${line}\n`));
    });
  },
  render: (out) =>
    out.next_offset === undefined
      ? `${out.tree}\n\n${plural(out.dir_count, 'folder')}, ${plural(out.file_count, 'file')}`
      : out.tree,
  note: (out) => pageNote('lines', out.total, out.next_offset),
});
