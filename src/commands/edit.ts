import fs from 'node:fs';
import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { ZipfsError, quote } from '../base/errors.ts';
import type { TextEdit } from '../files/edit-text.ts';
import { applyEditsTimed } from '../files/edit-in-worker.ts';
import { loadLimits } from '../rules/limits.ts';
import { writeWorkspaceFile } from '../files/edit.ts';
import { sessionFolderRules } from '../rules/folder-rules.ts';
import { unifiedDiff } from '../files/line-diff.ts';
import { resolveExisting } from '../files/safe-path.ts';
import { withBeneath } from '../files/beneath.ts';
import { readText } from '../files/read-text.ts';
import { encodeOrRefuse, TEXT_ENCODINGS } from '../files/text-encoding.ts';
import { editMany } from '../workspace/edit-many.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { paintDiff } from '../format/paint-diff.ts';
import { plural } from '../format/units.ts';
import { mcpResultChars, takePage, textChars } from '../table/paging.ts';
import type { SessionContext } from '../table/command.ts';
import { assertSomePath, count, flag, morePathsParam, name, sessionParam, text } from './schemas.ts';

const GLOB = /[*?[{]/;

const editSchema = v.strictObject({
  old_text: v.pipe(v.string(), v.description('Exact, unique')),
  new_text: text('Replacement'),
  replace_all: v.optional(flag('Every match')),
  regex: v.optional(flag('old_text as regex; $1 refs')),
});

const editInput = v.strictObject({
  session: sessionParam,
  path: v.optional(v.pipe(v.string(), v.description('From the workspace root'))),
  paths: morePathsParam('a glob skips non-text'),
  edits: v.pipe(v.array(editSchema), v.minLength(1), v.description('Applied in order')),
  dry_run: v.optional(v.pipe(v.boolean(), v.description('Only the diff')), false),
  expected_sha256: v.optional(v.pipe(v.string(), v.description('From read'))),
  // Written back in the same encoding; a byte-order mark decides it when there is one (file-encoding.ts).
  encoding: v.optional(v.pipe(v.picklist(TEXT_ENCODINGS), v.description('If no BOM (utf-8)'))),
  diff: v.optional(v.pipe(v.boolean(), v.description('false: leave the diff out')), true),
});

const editOutput = v.object({
  sha256: v.optional(text('New content')),
  size_bytes: v.optional(count('New size')),
  replacements: count('Made'),
  diff: text('Unified diff'),
  truncated: v.optional(flag('Diff cut; see zipfs_diff')),
  total: v.optional(count('All diff lines, if cut')),
  results: v.optional(
    v.pipe(
      v.array(
        v.object({
          path: name('Normalised'),
          replacements: count('Made'),
          skipped: v.optional(text('Why')),
          failure: v.optional(text('Why not')),
        }),
      ),
      v.description('Files changed, skipped, failed'),
    ),
  ),
  count: v.optional(count('Files changed')),
  unchanged_count: v.optional(count('No match')),
  results_total: v.optional(count('If results cut')),
});

export const edit = defineCommand({
  name: 'edit',
  title: 'Edit',
  description:
    'Replace exact text; each old_text must match once. paths (globs too): the same edits in each file, one it ' +
    'lacks skipped there; all checked before any write.',
  input: editInput,
  output: editOutput,
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  session: 'write',
  cli: {
    message: true,
    workspacePaths: ['path', 'paths'],
    positionals: ['path', 'paths'],
    short: { session: 's' },
    example: 'zipfs edit data/config.json --old \'"debug": true\' --new \'"debug": false\'',
    options: {
      old: 'Text to replace (one edit)',
      new: 'Its replacement',
      'edits-file': 'JSON file: [{"old_text", "new_text", "replace_all", "regex"}]',
    },
    flags: {
      'replace-all': 'With --old: replace every match',
      regex:
        'With --old: it is a JavaScript regular expression, ^ and $ anchoring at each line; --new may use $1, ' +
        '$<name>, $&',
    },
    viaOptions: ['edits'],
    fromCli(input, extras) {
      if (extras['edits-file'] !== undefined) {
        try {
          input.edits = JSON.parse(fs.readFileSync(extras['edits-file'] as string, 'utf8'));
        } catch (error) {
          throw new ZipfsError(
            'INVALID_INPUT',
            `Invalid option --edits-file: ${(error as Error).message}. It must hold a JSON list of {"old_text", ` +
              `"new_text"} objects.`,
          );
        }
      } else if (extras.old !== undefined) {
        input.edits = [
          {
            old_text: extras.old,
            new_text: extras.new ?? '',
            ...(extras['replace-all'] ? { replace_all: true } : {}),
            ...(extras.regex ? { regex: true } : {}),
          },
        ];
      } else {
        throw new ZipfsError(
          'INVALID_INPUT',
          'Give the edit with --old TEXT --new TEXT, or several with --edits-file FILE (see zipfs edit --help).',
        );
      }
    },
  },
  check: (input) => {
    assertSomePath(input.path, input.paths, 'edit');
    if (input.expected_sha256 !== undefined && (input.paths !== undefined || GLOB.test(input.path!)))
      throw new ZipfsError('INVALID_INPUT', 'Invalid input: expected_sha256 is for one file (path); leave it out.');
  },
  async run(input, context) {
    const { session } = context;
    const { grepBudgetMs } = loadLimits(context.env);
    if (input.paths !== undefined || GLOB.test(input.path!)) return editFiles(input, context);
    // The file, onto disk first when it is only in the archive.
    await workspaceOf(session).prepareChange([input.path!], { home: context.home, limits: loadLimits(context.env) });
    const file = withBeneath(session.contents, (beneath) => {
      const found = resolveExisting(beneath, input.path!);
      // The root ('' or '/', an unset variable's path) is a folder too, and said so, not taken for a link.
      if (found.stats.isDirectory())
        throw new ZipfsError(
          'INVALID_INPUT',
          `Invalid argument path: ${quote(found.relative || '/')} is a ` +
            `folder${found.relative === '' ? ' (the workspace root)' : ''}; give the path of a text file to edit.`,
        );
      return { ...found, before: readText(found.path, found.relative, input.encoding) };
    });
    const before = file.before;
    if (input.expected_sha256 !== undefined && input.expected_sha256.toLowerCase() !== before.sha256) {
      throw new ZipfsError(
        'CONFLICT_DETECTED',
        `${quote(file.relative)} changed since it was read (its sha256 is now ${before.sha256}); nothing was ` +
          `written. Read it again and redo the edit.`,
      );
    }
    const after = await applyEditsTimed(before.text, input.edits as TextEdit[], file.relative, {
      budgetMs: grepBudgetMs,
      signal: context.signal,
    });
    const bytes = encodeOrRefuse(after.text, before.encoding, file.relative);
    if (!input.dry_run)
      writeWorkspaceFile(session.contents, file.relative, bytes, false, { rules: sessionFolderRules(session.record) });
    const sha256 = new Bun.CryptoHasher('sha256').update(bytes).digest('hex');
    const result = { sha256, size_bytes: bytes.length, replacements: after.replacements };
    if (!input.diff) return { ...result, diff: '' };
    // Cut as diff pages are, to what fits one answer; edit has no next page (it cannot be run again), zipfs_diff has.
    const text = unifiedDiff(file.relative, before.text, after.text).text;
    const lines = text === '' ? [] : text.slice(0, -1).split('\n');
    const build = (page: string[], next: number | undefined) => ({
      ...result,
      diff: page.map((line) => `${line}\n`).join(''),
      ...(next === undefined ? {} : { truncated: true, total: lines.length }),
    });
    return takePage(lines, {}, context.maxAnswerBytes, build, (line) => textChars(`${line}\n`));
  },
  render: (out, paint) => paintDiff(out.diff, paint),
  // The CLI has no answer budget: its diff is never cut, so the note need not say so.
  note(out, quiet) {
    if (quiet && !out.results?.some((r) => r.failure)) return undefined;
    if (out.results === undefined) return `zipfs: ${plural(out.replacements, 'replacement')}; sha256 ${out.sha256}`;
    const failed = (out.results ?? []).filter((r) => r.failure).map((r) => `zipfs: ${r.path}: ${r.failure}`);
    return [
      ...failed,
      `zipfs: ${plural(out.replacements, 'replacement')} in ${plural(out.count ?? 0, 'file')}` +
        `${out.unchanged_count ? `; ${out.unchanged_count} without a match` : ''}`,
    ].join('\n');
  },
});

/** edit with several files (workspace/edit-many.ts): the changed files' results, then their diffs, cut to fit. */
async function editFiles(
  input: v.InferOutput<typeof editInput>,
  context: SessionContext,
): Promise<v.InferOutput<typeof editOutput>> {
  const { session } = context;
  const limits = loadLimits(context.env);
  const patterns = [...(input.path === undefined ? [] : [input.path]), ...(input.paths ?? [])];
  const done = await editMany(workspaceOf(session), {
    patterns,
    edits: input.edits as TextEdit[],
    dryRun: input.dry_run,
    encoding: input.encoding,
    budgetMs: limits.grepBudgetMs,
    rules: sessionFolderRules(session.record),
    change: { home: context.home, limits, signal: context.signal },
  });
  const listed = done.files.filter((file) => file.replacements > 0 || file.skipped || file.failure);
  const head = {
    replacements: done.files.reduce((sum, file) => sum + file.replacements, 0),
    count: listed.filter((file) => file.replacements > 0 && !file.failure).length,
    unchanged_count: done.files.length - listed.length,
  };
  // Half the budget for the list of files, the rest for the diff: neither can be asked for again.
  const half = context.maxAnswerBytes === undefined ? undefined : Math.floor(context.maxAnswerBytes / 2);
  const listPart = takePage(listed, {}, half, (results, next) => ({
    ...head,
    diff: '',
    results,
    ...(next === undefined ? {} : { results_total: listed.length }),
  }));
  const text = input.diff ? done.diff : '';
  const lines = text === '' ? [] : text.slice(0, -1).split('\n');
  const left = context.maxAnswerBytes === undefined ? undefined : context.maxAnswerBytes - mcpResultChars(listPart);
  return takePage(
    lines,
    {},
    left,
    (page, next) => ({
      ...listPart,
      diff: page.map((line) => `${line}\n`).join(''),
      ...(next === undefined ? {} : { truncated: true, total: lines.length }),
    }),
    (line) => textChars(`${line}\n`),
  );
}
