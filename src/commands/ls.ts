import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { humanBytes, isoSeconds, localMinute, table } from '../format/units.ts';
import { walk } from '../workspace/listing.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { withBeneath } from '../files/beneath.ts';
import {
  limitParam,
  pageFields,
  nextOffsetField,
  offsetParam,
  pageNote,
  takePage,
  totalField,
} from '../table/paging.ts';
import { count, name, sessionParam, text, workspacePathParam } from './schemas.ts';

const entrySchema = v.object({
  name: name('Folders end in /'),
  type: v.pipe(v.picklist(['file', 'dir', 'symlink']), v.description('Kind')),
  size_bytes: count('Size'),
  modified_at: text('ISO time'),
  encrypted: v.optional(text('Encryption')),
});

export const ls = defineCommand({
  name: 'ls',
  title: 'List',
  description: 'List a workspace folder, entries still only in the zip included.',
  input: v.strictObject({
    session: sessionParam,
    path: workspacePathParam('Folder or file'),
    recursive: v.optional(v.pipe(v.boolean(), v.description('All levels')), false),
    offset: offsetParam,
    limit: limitParam('entries'),
  }),
  output: v.object({
    entries: v.pipe(v.array(entrySchema), v.description('Folders first')),
    total: totalField('entries'),
    next_offset: nextOffsetField,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  session: 'read',
  cli: {
    workspacePaths: ['path'],
    fromCurrentFolder: true,
    positionals: ['path'],
    short: { session: 's', recursive: 'r' },
    example: 'zipfs ls data -r',
  },
  run(input, context) {
    const { session } = context;
    const workspace = workspaceOf(session);
    return withBeneath(session.contents, (beneath) => {
      const target = workspace.stat(beneath, input.path);
      const symlinks = new Set(session.record.symlinks);
      if (target.archived ? target.archived.type !== 'dir' : !target.disk!.stats.isDirectory()) {
        const name = target.relative.split('/').pop()!;
        const type = target.archived
          ? target.archived.type
          : symlinks.has(target.relative)
            ? ('symlink' as const)
            : ('file' as const);
        const [size, mtime] = target.archived
          ? [target.archived.size, target.archived.mtime]
          : [target.disk!.stats.size, target.disk!.stats.mtime];
        const encrypted = target.archived?.encrypted;
        return {
          entries: [{ name, type, size_bytes: size, modified_at: isoSeconds(mtime), ...(encrypted && { encrypted }) }],
        };
      }
      const entries: v.InferOutput<typeof entrySchema>[] = [];
      walk(
        target.disk ? beneath.folder(target.relative) : undefined,
        {
          maxDepth: input.recursive ? Infinity : 1,
          archiveSymlinks: symlinks,
          base: target.relative,
          archived: (relative) => workspace.archivedChildren(relative),
        },
        (item) => {
          entries.push({
            name: item.type === 'dir' ? `${item.path}/` : item.path,
            type: item.type,
            size_bytes: item.size,
            modified_at: isoSeconds(item.mtime),
            ...(item.encrypted && { encrypted: item.encrypted }),
          });
        },
      );
      return takePage(entries, input, context.maxAnswerBytes, (page, next) => ({
        entries: page,
        ...pageFields(entries.length, input.offset, next),
      }));
    });
  },
  render(out, paint) {
    if (out.entries.length === 0) return '(empty)';
    const rows = out.entries.map((e) => [
      e.type,
      e.type === 'dir' ? '-' : humanBytes(e.size_bytes),
      localMinute(new Date(e.modified_at)),
      (e.type === 'dir' ? paint.bold(paint.cyan(e.name)) : e.type === 'symlink' ? paint.cyan(e.name) : e.name) +
        (e.encrypted ? ` (encrypted: ${e.encrypted})` : ''),
    ]);
    return table(rows, [1]);
  },
  note: (out) => pageNote('entries', out.total, out.next_offset),
});
