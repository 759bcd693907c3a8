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
import { notReadable, openRegularFile } from '../base/regular-file.ts';
import { notTextReason, scanFile } from '../files/text-or-binary.ts';
import { textEncodingOf, WHOLE_TEXT_MAX_BYTES } from '../files/file-encoding.ts';
import { decodeText, encodeOrRefuse, TEXT_ENCODINGS, type TextEncoding } from '../files/text-encoding.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { paintDiff } from '../format/paint-diff.ts';
import { plural } from '../format/units.ts';
import { param } from '../base/message-marks.ts';
import { takePage, textChars } from '../table/paging.ts';
import { count, flag, sessionParam, text } from './schemas.ts';

const editSchema = v.strictObject({
  old_text: v.pipe(v.string(), v.description('Exact, unique')),
  new_text: text('Replacement'),
  replace_all: v.optional(flag('Every match')),
  regex: v.optional(flag('old_text as regex; $1 refs')),
});

/**
 * The file's characters (a BOM kept as U+FEFF), the encoding they are written back in, and
 * the file's SHA-256; or why it cannot be edited as text.
 */
function readText(
  absolute: string,
  relative: string,
  asked: TextEncoding | undefined,
): { text: string; encoding: TextEncoding; sha256: string } {
  const { fd, stats } = openRegularFile(absolute, relative, { refuse: (what) => notReadable(relative, what) });
  try {
    const { kind, sha256 } = scanFile(fd, stats.size);
    const encoding =
      stats.size > WHOLE_TEXT_MAX_BYTES ? undefined : textEncodingOf(fd, stats.size, kind, asked, relative);
    const text = encoding && decodeText(fs.readFileSync(fd), encoding);
    if (text === undefined || !encoding) {
      const why =
        stats.size > WHOLE_TEXT_MAX_BYTES
          ? 'over 64 MiB'
          : kind === 'binary'
            ? 'binary'
            : `${notTextReason(kind === 'utf-8' ? 'not-utf-8' : kind)} (name its encoding with ` +
              `${param('encoding', 'iso-8859-1')} or another, if it is text)`;
      throw new ZipfsError(
        'INVALID_INPUT',
        `${quote(relative)} is ${why}; edit works on text files. Replace it whole with write.`,
      );
    }
    return { text, encoding, sha256 };
  } finally {
    fs.closeSync(fd);
  }
}

export const edit = defineCommand({
  name: 'edit',
  title: 'Edit',
  description: 'Replace exact text; each old_text must match once.',
  input: v.strictObject({
    session: sessionParam,
    path: v.pipe(v.string(), v.description('From the workspace root')),
    edits: v.pipe(v.array(editSchema), v.minLength(1), v.description('Applied in order')),
    dry_run: v.optional(v.pipe(v.boolean(), v.description('Only the diff')), false),
    expected_sha256: v.optional(v.pipe(v.string(), v.description('From read'))),
    // Written back in the same encoding; a byte-order mark decides it when there is one (file-encoding.ts).
    encoding: v.optional(v.pipe(v.picklist(TEXT_ENCODINGS), v.description('If no BOM (utf-8)'))),
    diff: v.optional(v.pipe(v.boolean(), v.description('false: leave the diff out')), true),
  }),
  output: v.object({
    sha256: text('New content'),
    size_bytes: count('New size'),
    replacements: count('Made'),
    diff: text('Unified diff'),
    truncated: v.optional(flag('Diff cut; see zipfs_diff')),
    total: v.optional(count('All diff lines, if cut')),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  session: 'write',
  cli: {
    message: true,
    workspacePaths: ['path'],
    positionals: ['path'],
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
  async run(input, context) {
    const { session } = context;
    const { grepBudgetMs } = loadLimits(context.env);
    // The file, onto disk first when it is only in the archive.
    await workspaceOf(session).prepareChange([input.path], { home: context.home, limits: loadLimits(context.env) });
    const file = withBeneath(session.contents, (beneath) => {
      const found = resolveExisting(beneath, input.path);
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
    const after = await applyEditsTimed(
      before.text,
      input.edits as TextEdit[],
      file.relative,
      grepBudgetMs,
      context.signal,
    );
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
  note: (out, quiet) => (quiet ? undefined : `zipfs: ${plural(out.replacements, 'replacement')}; sha256 ${out.sha256}`),
});
