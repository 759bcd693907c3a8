import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { humanBytes, plural, table } from '../format/units.ts';
import { parseDuration, prune as pruneSessions } from '../session/prune.ts';

export const prune = defineCommand({
  name: 'prune',
  title: 'Remove stale or all sessions',
  description:
    'Remove sessions not used for a while (stale) or all of them, with their workspaces, and clean leftovers of interrupted operations. Unsynced changes in a removed session are lost: preview with dry_run. Sessions locked by another process are skipped, and so are damaged ones (unreadable manifest, another zipfs version) unless all.',
  input: v.strictObject({
    all: v.optional(v.pipe(v.boolean(), v.description('Remove every session')), false),
    stale: v.optional(v.pipe(v.string(), v.description('Remove sessions not used for this long: 30m, 24h, 7d, 2w'))),
    dry_run: v.optional(v.pipe(v.boolean(), v.description('Report what would be removed, remove nothing')), false),
  }),
  output: v.object({
    pruned: v.array(v.object({ id: v.string(), name: v.string(), reason: v.string() })),
    skipped: v.array(v.object({ name: v.string(), reason: v.string() })),
    freed_bytes: v.number(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  cli: { example: 'zipfs prune --stale 7d --dry-run' },
  run(input, context) {
    return pruneSessions({ home: context.home, all: input.all, staleMs: input.stale === undefined ? undefined : parseDuration(input.stale), dryRun: input.dry_run });
  },
  render(out) {
    if (out.pruned.length === 0 && out.skipped.length === 0) return 'Nothing to prune.';
    const rows = [...out.pruned.map((p) => [p.name, p.reason]), ...out.skipped.map((s) => [s.name, `skipped: ${s.reason}`])];
    return `${table([['NAME', 'REASON'], ...rows])}\n\n${plural(out.pruned.length, 'item')} pruned, ${humanBytes(out.freed_bytes)} freed`;
  },
});
