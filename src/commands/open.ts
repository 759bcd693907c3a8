import * as v from 'valibot';
import { assertNarrowing } from '../table/filter-values.ts';
import { ZipfsError } from '../base/errors.ts';
import { count, flag, name, nameEncodingParam, names, text } from './schemas.ts';
import { quoted } from '../format/quote-name.ts';
import { SYMLINK_NOTE } from '../open/inspect-archive.ts';
import { defineCommand, lockWait } from '../table/command.ts';
import { adoptSession } from '../open/take-over.ts';
import { humanBytes, plural } from '../format/units.ts';
import { loadLimits } from '../rules/limits.ts';
import { openArchive } from '../open/open-archive.ts';
import type { Opened } from '../open/open-request.ts';
import { listSessions, sessionOf, type Session } from '../session/session-store.ts';
import { isNewArchive, sourceState, type SourceState } from '../session/source-state.ts';
import { invocation, param } from '../base/message-marks.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { heldByAnother } from '../open/session-holder.ts';
import type { CodePage } from '../zip/index.ts';
import { localPathOf } from '../open/open-remote.ts';
import { phase } from '../base/phase-trace.ts';

/**
 * A reused session whose zip another writer changed since its base (by the directory's hash: source-state.ts): said at
 * once.
 */
function zipMoved(session: Session): string[] {
  let state: SourceState;
  try {
    state = sourceState(session.record);
  } catch {
    return []; // not a file any more: status and sync say so
  }
  return state === 'changed' && !isNewArchive(session.record)
    ? [
        `the zip changed since this session's base (another writer): ${invocation('status')} lists its changes, ` +
          `and sync with ${param('merge')} keeps both sides'`,
      ]
    : [];
}

/**
 * A name encoding asked for that the zip's session does not read names in: refused, since that session's workspace
 * names its files as it read them. Closing it (nothing is lost when it has no changes) lets open read them anew.
 */
function sameNameEncoding(session: Session, asked: CodePage | undefined): void {
  const current = session.record.name_encoding;
  if (asked === undefined || asked === current) return;
  throw new ZipfsError(
    'INVALID_INPUT',
    `Invalid argument name_encoding: the zip is open already as session "${session.record.name}", which reads its ` +
      `names ${current ? `as ${current}` : 'without a name encoding'}. Close it first (${invocation('close', {
        session: session.record.name,
      })}; sync before, to keep its changes), then open again with ${param('name_encoding', asked)}.`,
  );
}

/** Warnings listed at most; an archive may hold a link per entry. */
const MAX_WARNINGS = 20;

export const open = defineCommand({
  name: 'open',
  title: 'Open a zip',
  description:
    'Open a zip as a session: a workspace folder of its files that the other tools change, and sync writes back. ' +
    'lazy extracts nothing (for big archives: read, grep, ls, tree, diff, restore, delete and move work on entries ' +
    'still in the zip; edit and write extract what they change). Opening the same zip again gives the same session, ' +
    'unless another client works in it: then you get your own (held_by). path may be an http(s):// URL (WebDAV ' +
    'too) or s3://bucket/key: opened lazily by range reads, synced back with If-Match.',
  input: v.strictObject({
    path: v.pipe(v.string(), v.description('Zip file path')),
    name: v.optional(v.pipe(v.string(), v.description('Default: zip base name'))),
    create: v.optional(v.pipe(v.boolean(), v.description('Start empty if none')), false),
    lazy: v.optional(
      v.pipe(v.boolean(), v.description('Extract nothing now; entries are read from the zip when needed')),
      false,
    ),
    only: v.optional(v.pipe(v.array(v.string()), v.description('Paths or globs to extract; the rest as lazy'))),
    // CI jobs sharing a data folder must not share a session: a fresh one, named as a taken derived name is (app-2).
    new: v.optional(flag('A new session even if the zip has one'), false),
    name_encoding: nameEncodingParam,
    download: v.optional(flag('A URL: fetch the whole archive now (for a server that ignores ranges)'), false),
    endpoint: v.optional(v.pipe(v.string(), v.description('s3:// on an S3-compatible store: its URL'))),
  }),
  output: v.object({
    session_id: text('Id'),
    name: text('Name'),
    workspace_path: name('Its files'),
    file_count: count('Files'),
    extracted_size_bytes: count('Bytes'),
    not_extracted: v.optional(count('Files (as file_count) only in zip')),
    already_open: v.optional(flag('Reused')),
    zip_changed: v.optional(flag('Zip changed since base')),
    held_by: v.optional(
      v.pipe(
        v.object({
          session: text("That client's session of this zip"),
          holder: text('Another MCP connection (its client) or a process'),
          since: text('ISO time'),
        }),
        v.description(
          'Another live client works in a session of this zip: over MCP you got your own; name it to share',
        ),
      ),
    ),
    warnings: v.optional(v.pipe(v.array(v.string()), v.description('As inspect warns'))),
    other_sessions: v.optional(names('Open too: name one in calls')),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  cli: { message: true, positionals: ['path'], example: 'zipfs open reports.zip --name q4-report' },
  async run(input, context) {
    context.zips?.assert(input.path);
    assertNarrowing(input.only, 'only', 'extract everything (or pass lazy to extract nothing)');
    // An empty list names nothing to extract: not "everything" either (an MCP client's filled-in default).
    if (input.only?.length === 0)
      throw new ZipfsError(
        'INVALID_INPUT',
        'Invalid argument only: the list is empty; give the paths or globs to extract, pass lazy to extract ' +
          'nothing, or leave only out to extract everything.',
      );
    // The same zip opened again (without asking for another session by name) is the session it already has:
    // a second one would silently conflict with the first on the next sync.
    let share = input.name === undefined && !input.new;
    let found = share ? sessionOf(context.home, localPathOf(context.home, input.path, input.endpoint)) : undefined;
    // Another live client's session of this zip is not shared by surprise: over MCP this caller gets its own; on the
    // CLI (a person at a shell sees every session) it is shared, and the answer says whose it is.
    const held = found && heldByAnother(found, context.connection, context.owner);
    if (held && context.connection) [share, found] = [false, undefined];
    if (found) sameNameEncoding(found, input.name_encoding);
    phase('open: find session');
    // Another open of the zip at the same moment: the one that publishes second shares the first's session
    // (publishOnce).
    const session: Opened =
      found ??
      (await openArchive({
        zipPath: input.path,
        name: input.name,
        create: input.create,
        lazy: input.lazy,
        only: input.only,
        home: context.home,
        limits: loadLimits(context.env),
        progress: context.progress,
        signal: context.signal,
        owner: context.owner,
        share,
        nameEncoding: input.name_encoding,
        download: input.download,
        endpoint: input.endpoint,
      }));
    const existing = found !== undefined || session.shared === true;
    // Reusing a killed job's session makes it this job's: prune --orphaned must not take it from under it.
    if (existing) await adoptSession(session, context.owner, lockWait(context));
    phase('open: opened');
    const notExtracted = workspaceOf(session).notExtracted();
    const result = {
      session_id: session.record.id,
      name: session.record.name,
      workspace_path: session.contents,
      file_count: session.record.file_count,
      extracted_size_bytes: session.record.extracted_size_bytes,
      ...(notExtracted === undefined ? {} : { not_extracted: notExtracted }),
    };
    // What an agent needs before its next call: links it will find as plain files, and that calls
    // without a session are now ambiguous when other sessions are open.
    const links = session.record.symlinks;
    const moved = existing ? zipMoved(session) : [];
    const warnings = [
      ...(session.tookOver ? [session.tookOver] : []),
      ...(session.nameWarning ? [session.nameWarning] : []),
      ...moved,
      ...links.slice(0, MAX_WARNINGS).map((link) => `${quoted(link)} ${SYMLINK_NOTE}`),
      ...(links.length > MAX_WARNINGS ? [`and ${links.length - MAX_WARNINGS} more symbolic links`] : []),
    ];
    const others = listSessions(context.home)
      .map((s) => s.record.name)
      .filter((other) => other !== session.record.name)
      .sort();
    phase('open: answer');
    return {
      ...result,
      ...(existing ? { already_open: true } : {}),
      // Not only a warning: the counts above are the base's, and an agent checks a field before it reads prose.
      ...(moved.length > 0 ? { zip_changed: true } : {}),
      ...(held ? { held_by: held } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
      ...(others.length > 0 ? { other_sessions: others } : {}),
    };
  },
  render: (out) =>
    `${
      out.already_open
        ? `Already open as session "${out.name}" (to open another, give it a name with --name, or pass --new)`
        : `Opened session "${out.name}"`
    }: ${plural(out.file_count, 'file')}, ${
      out.not_extracted === undefined
        ? humanBytes(out.extracted_size_bytes)
        : `${humanBytes(out.extracted_size_bytes)} extracted, ` +
          `${plural(out.not_extracted, 'file')} left in the zip (not extracted)`
    }\n${out.workspace_path}`,
  note(out, quiet) {
    const notes = (out.warnings ?? []).map((warning) => `zipfs: ${warning}.`);
    if (out.held_by && out.already_open)
      notes.push(
        `zipfs: ${out.held_by.holder} works in this session too (since ${out.held_by.since}); for one of your own, ` +
          'open with --new.',
      );
    if (out.other_sessions && !quiet)
      notes.push(
        `zipfs: ${plural(out.other_sessions.length, 'other session')} open (${out.other_sessions.join(', ')}): ` +
          `name the session in later commands (-s ${out.name}, or ZIPFS_SESSION=${out.name}).`,
      );
    return notes.length > 0 ? notes.join('\n') : undefined;
  },
});
