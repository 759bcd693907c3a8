import * as v from 'valibot';
import { count, flag, name, text } from './schemas.ts';
import { defineCommand } from '../table/command.ts';
import { humanBytes, plural, table } from '../format/units.ts';
import { parseDuration, prune as pruneSessions } from '../session/prune.ts';
import { pruneLeftovers } from '../sync/prune-leftovers.ts';
import { pendingChanges } from '../sync/unsynced.ts';

export const prune = defineCommand({
  name: 'prune',
  title: 'Prune',
  description: 'Remove stale, orphaned or all sessions and leftovers; unsynced work stays unless discarded.',
  input: v.strictObject({
    all: v.optional(v.pipe(v.boolean(), v.description('Every session')), false),
    stale: v.optional(v.pipe(v.string(), v.description('Unused for: 30m, 24h, 7d'))),
    orphaned: v.optional(v.pipe(v.boolean(), v.description('Job process gone')), false),
    include_live: v.optional(v.pipe(v.boolean(), v.description("A live job's too")), false),
    discard_changes: v.optional(v.pipe(v.boolean(), v.description('Unsynced work too')), false),
    dry_run: v.optional(v.pipe(v.boolean(), v.description('Remove nothing')), false),
  }),
  output: v.object({
    pruned: v.pipe(
      v.array(v.object({ id: text('Empty: leftover'), name: name('Name'), reason: text('Why') })),
      v.description('Removed'),
    ),
    skipped: v.pipe(v.array(v.object({ name: name('Name'), reason: text('Why') })), v.description('Kept')),
    freed_bytes: count('Bytes'),
    dry_run: flag('Nothing removed'),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  cli: { message: true, example: 'zipfs prune --orphaned --dry-run' },
  run(input, context) {
    return pruneSessions({
      home: context.home,
      all: input.all,
      staleMs: input.stale === undefined ? undefined : parseDuration(input.stale),
      orphaned: input.orphaned,
      includeLive: input.include_live,
      discardChanges: input.discard_changes,
      caller: context.owner,
      dryRun: input.dry_run,
      reaches: context.zips && ((zipPath) => context.zips!.allows(zipPath)),
      pendingChanges,
      leftovers: (sessions, dryRun) => pruneLeftovers(context.home, sessions, dryRun),
    });
  },
  render(out, _paint, _flags, input) {
    if (out.pruned.length === 0 && out.skipped.length === 0) return 'Nothing to prune.';
    const rows = [
      ...out.pruned.map((p) => [p.name, p.reason]),
      ...out.skipped.map((s) => [s.name, `skipped: ${s.reason}`]),
    ];
    // A dry run says what it would do: it removed nothing.
    const done = input.dry_run
      ? `${plural(out.pruned.length, 'item')} would be pruned, ${humanBytes(out.freed_bytes)} would be freed (dry ` +
        `run: nothing removed)`
      : `${plural(out.pruned.length, 'item')} pruned, ${humanBytes(out.freed_bytes)} freed`;
    return `${table([['NAME', 'REASON'], ...rows])}\n\n${done}`;
  },
  // -q leaves the table out; work kept from a cleanup is still said (a CI job's `prune --orphaned -q`).
  note(out, quiet) {
    const kept = out.skipped.filter((s) => s.reason.startsWith('kept: ')).map((s) => s.name);
    return quiet && kept.length > 0
      ? `zipfs: kept ${plural(kept.length, 'session')} for ${kept.length === 1 ? 'its' : 'their'} unsynced changes ` +
          `(${kept.join(', ')}); --discard-changes removes ${kept.length === 1 ? 'it' : 'them'} too.`
      : undefined;
  },
});
