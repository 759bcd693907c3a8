import { phase } from '../base/phase-trace.ts';
import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { plural } from '../format/units.ts';
import { lockedByOther } from '../session/lock.ts';
import { changeLines, zipChangesSince } from '../sync/zip-changes.ts';
import { describeLeftover, findZipLeftovers } from '../sync/zip-leftovers.ts';
import { recoverInterruptedSync } from '../sync/sync-archive.ts';
import { isNewArchive, sourceState } from '../session/source-state.ts';
import type { Unsupported, WorkspaceDiff } from '../sync/workspace-diff.ts';
import { lookAtWorkspace } from '../sync/status-look.ts';
import {
  itemChars,
  pageFields,
  limitParam,
  nextOffsetField,
  offsetParam,
  pageNote,
  takePage,
  totalField,
} from '../table/paging.ts';
import { count, flag, name, names, sessionParam, text } from './schemas.ts';
import type { Base } from '../workspace/base.ts';
import type { SessionRecord } from '../session/manifest.ts';

function changeCount(out: {
  modified: string[];
  added: string[];
  deleted: string[];
  renamed?: unknown[];
  total?: number;
}): number {
  return out.total ?? out.modified.length + out.added.length + out.deleted.length + (out.renamed?.length ?? 0);
}

/** One changed path as paging counts it: the lists are one run, modified, added, deleted, then renamed. */
type Change = {
  list: 'modified' | 'added' | 'deleted' | 'renamed';
  path: string;
  rename?: WorkspaceDiff['renamed'][number];
  unsupported?: Unsupported;
};

/** Most zip-side changes listed; the rest are counted. */
const MAX_ZIP_CHANGES = 200;

/**
 * What the zip's other writer did since the base, when the zip moved (zip-changes.ts); undefined when it did not.
 * `base` is read only then.
 */
function zipBehind(record: SessionRecord, base: () => Base): string[] | undefined {
  let state: ReturnType<typeof sourceState>;
  try {
    state = sourceState(record);
  } catch {
    return undefined; // not a file any more: sync and diff say so
  }
  if (state !== 'changed' || isNewArchive(record)) return undefined;
  // Against the whole base: an entry never extracted is not taken for one the other writer added.
  const whole = base();
  const changes = zipChangesSince(whole.whole(), whole.record.source_path, whole.record.name_encoding);
  if (!changes) return [];
  const all = changeLines(changes);
  return all.length > MAX_ZIP_CHANGES
    ? [...all.slice(0, MAX_ZIP_CHANGES), `... and ${all.length - MAX_ZIP_CHANGES} more`]
    : all;
}

export const status = defineCommand({
  name: 'status',
  title: 'Status',
  description:
    'Workspace changes since open or last sync, and zip_changed: what another writer changed in the zip meanwhile.',
  input: v.strictObject({ session: sessionParam, offset: offsetParam, limit: limitParam('paths') }),
  output: v.object({
    modified: names('Folders end in /'),
    added: names('New'),
    deleted: names('Removed'),
    renamed: v.optional(
      v.pipe(
        v.array(
          v.object({ from: name('Old path'), to: name('New path'), modified: v.optional(flag('Content changed too')) }),
        ),
        v.description('Moved; not in added, deleted'),
      ),
    ),
    unchanged_count: count('Entries'),
    unsupported: v.optional(
      v.pipe(
        v.array(v.object({ path: name('Path'), reason: text('And the fix') })),
        v.description('Sync refuses these (of this page)'),
      ),
    ),
    total: totalField('changed paths'),
    zip_changed: v.optional(
      v.pipe(
        v.array(v.string()),
        v.description('The zip since base, by another writer: A/M/D name; sync merge takes them'),
      ),
    ),
    leftovers: v.optional(
      v.pipe(v.array(v.string()), v.description("Beside the zip, killed syncs': sync, prune remove")),
    ),
    next_offset: nextOffsetField,
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  session: 'read',
  cli: {
    positionals: ['session'],
    short: { session: 's' },
    example: 'zipfs status --exit-code || zipfs sync',
    flags: { 'exit-code': 'Exit with 1 when there are changes (for scripts)' },
    exitCode: (out, flags) => (flags['exit-code'] && changeCount(out) > 0 ? 1 : 0),
  },
  run(input, context) {
    const { session } = context;
    if (!lockedByOther(session)) recoverInterruptedSync(session);
    phase('status: session');
    const { diff, record, base } = lookAtWorkspace(session);
    phase('status: diff');
    const behind = zipBehind(record, base);
    // What a killed sync left beside the zip (its lock, a temporary as large as the archive): said, not hidden.
    const leftovers = findZipLeftovers(record.source_path).map(describeLeftover);
    const refused = new Map(diff.unsupported.map((u) => [u.path, u]));
    const changes: Change[] = [
      ...(['modified', 'added', 'deleted'] as const).flatMap((list) =>
        diff[list].map((path) => ({ list, path, unsupported: refused.get(path) })),
      ),
      ...diff.renamed.map((rename) => ({
        list: 'renamed' as const,
        path: rename.to,
        rename,
        unsupported: refused.get(rename.to),
      })),
    ];
    // What sync would refuse is told beside its path (a modified, added or renamed one), on the page that lists it.
    const build = (page: Change[], next: number | undefined) => {
      const pick = (list: Change['list']) => page.filter((c) => c.list === list).map((c) => c.path);
      const renamed = page.flatMap((c) => (c.rename ? [c.rename] : []));
      const unsupported = page.flatMap((c) => (c.unsupported ? [c.unsupported] : []));
      const result = {
        modified: pick('modified'),
        added: pick('added'),
        deleted: pick('deleted'),
        ...(renamed.length > 0 ? { renamed } : {}),
        unchanged_count: diff.unchangedCount,
      };
      return {
        ...result,
        ...(unsupported.length > 0 ? { unsupported } : {}),
        ...pageFields(changes.length, input.offset, next),
      };
    };
    const page = (changes: Change[], next: number | undefined) => ({
      ...build(changes, next),
      ...(behind ? { zip_changed: behind } : {}),
      ...(leftovers.length > 0 ? { leftovers } : {}),
    });
    return takePage(
      changes,
      input,
      context.maxAnswerBytes,
      page,
      (c) => itemChars(c.path) + (c.rename ? itemChars(c.rename) : 0) + (c.unsupported ? itemChars(c.unsupported) : 0),
    );
  },
  // As git status --short: R (RM when the content changed too) old -> new.
  // Nothing to sync is status's answer, on stdout as git status says "nothing to commit"; -q leaves it out.
  render: (out, paint, flags) =>
    changeCount(out) === 0
      ? flags.quiet
        ? ''
        : `Nothing to sync: ${plural(out.unchanged_count, 'entry', 'entries')} unchanged.`
      : [
          ...out.modified.map((p) => paint.yellow(`M ${p}`)),
          ...(out.renamed ?? []).map((r) => paint.cyan(`${r.modified ? 'RM' : 'R'} ${r.from} -> ${r.to}`)),
          ...out.added.map((p) => paint.green(`A ${p}`)),
          ...out.deleted.map((p) => paint.red(`D ${p}`)),
        ].join('\n'),
  note(out) {
    const notes = (out.unsupported ?? []).map((u) => `zipfs: sync will refuse ${u.path}: ${u.reason}.`);
    if (out.zip_changed) {
      // As git says a branch is behind: the other writer's changes, and the way to take them in.
      const what =
        out.zip_changed.length > 0
          ? out.zip_changed.map((change) => `  ${change}`).join('\n')
          : '  (rewritten with the same entries)';
      notes.push(
        `zipfs: the zip changed since this session's base (another writer):\n${what}\nzipfs: sync --merge takes ` +
          `these in beside your changes; a plain sync is refused.`,
      );
    }
    if (out.leftovers)
      notes.push(
        `zipfs: a killed sync left beside the zip: ${out.leftovers.join('; ')}; the next sync (or zipfs prune) ` +
          `removes them.`,
      );
    const more = pageNote('changed paths', out.total, out.next_offset);
    if (more) notes.push(more);
    return notes.length > 0 ? notes.join('\n') : undefined;
  },
});
