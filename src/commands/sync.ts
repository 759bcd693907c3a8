import * as v from 'valibot';
import { defineCommand, lockWait } from '../table/command.ts';
import { loadLimits } from '../rules/limits.ts';
import { syncSession } from '../sync/sync-archive.ts';
import { backupsSaid } from '../sync/backup-history.ts';
import { humanBytes } from '../format/units.ts';
import { backupParam, count, flag, NAME, name, sessionParam } from './schemas.ts';

export const sync = defineCommand({
  name: 'sync',
  title: 'Sync',
  description:
    'Write changes into the zip atomically, keeping the old one as ZIP.bak. If another writer changed the zip, merge ' +
    'keeps both sides (text merged by lines; conflicts get git markers to edit); force overwrites theirs.',
  input: v.strictObject({
    session: sessionParam,
    force: v.optional(v.pipe(v.boolean(), v.description('Replace a changed zip')), false),
    merge: v.optional(v.pipe(v.boolean(), v.description('Merge a changed zip')), false),
    dry_run: v.optional(v.pipe(v.boolean(), v.description('Write nothing')), false),
    backup: backupParam,
  }),
  output: v.object({
    synced: flag('Written'),
    backup_path: v.pipe(v.nullable(NAME), v.description('Old zip')),
    older_backup_path: v.optional(name('Older .bak')),
    files_modified: count('Paths'),
    files_added: count('Paths'),
    files_deleted: count('Paths'),
    files_renamed: v.optional(count('Moved')),
    from_zip: v.optional(v.pipe(v.array(v.string()), v.description('From zip: A/M/D'))),
    from_workspace: v.optional(v.pipe(v.array(v.string()), v.description('Dry run: A/M/D/R'))),
    merged_by_lines: v.optional(v.pipe(v.array(v.string()), v.description('By lines'))),
    leftovers_removed: v.optional(v.pipe(v.array(v.string()), v.description("Killed syncs' files"))),
    method_changed: v.optional(v.pipe(v.array(v.string()), v.description('Rewritten as deflate'))),
    bytes_sent: v.optional(count('Remote zip: bytes uploaded')),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  session: 'write',
  cli: { message: true, positionals: ['session'], short: { session: 's' }, example: 'zipfs sync --dry-run' },
  async run(input, context) {
    return syncSession({
      session: context.session,
      force: input.force,
      merge: input.merge,
      dryRun: input.dry_run,
      backup: input.backup,
      progress: context.progress,
      signal: context.signal,
      wait: lockWait(context),
      limits: loadLimits(context.env),
    });
  },
  render(out) {
    const renamed = out.files_renamed ? `, ${out.files_renamed} renamed` : '';
    const counts = `${out.files_modified} modified, ${out.files_added} added, ${out.files_deleted} deleted${renamed}`;
    const list = (title: string, lines: string[] | undefined) =>
      lines && lines.length > 0 ? `\n${title}:\n${lines.map((line) => `  ${line}`).join('\n')}` : '';
    const merged =
      list(`From the zip (another writer's changes${out.synced ? ', now in the workspace too' : ''})`, out.from_zip) +
      list('From the workspace', out.from_workspace) +
      list('Merged by lines (both sides changed them, in different lines)', out.merged_by_lines);
    if (!out.synced) return `Would sync ${counts} (dry run: nothing written).${merged}`;
    if (
      out.backup_path === null &&
      out.files_modified + out.files_added + out.files_deleted + (out.files_renamed ?? 0) === 0
    )
      return out.from_zip
        ? `Nothing of the workspace's own to write: the zip was left as it was.${merged}`
        : 'Nothing to sync: the zip already matches the workspace.';
    const kept = out.backup_path ? ` Previous archive kept as ${out.backup_path}${backupsSaid(out)}.` : '';
    const sent = out.bytes_sent === undefined ? '' : ` Uploaded ${humanBytes(out.bytes_sent)}.`;
    return `Synced ${counts}.${kept}${sent}${merged}`;
  },
  note: (out) =>
    [
      out.leftovers_removed &&
        `zipfs: removed what a killed sync left beside the zip: ${out.leftovers_removed.join('; ')}.`,
      out.method_changed &&
        `zipfs: ${out.synced ? 'deflated' : 'would deflate'} ` +
          `${out.method_changed.length === 1 ? 'a changed entry' : 'changed entries'} whose method zipfs cannot ` +
          `write: ${out.method_changed.join('; ')}.`,
    ]
      .filter(Boolean)
      .join('\n') || undefined,
});
