/**
 * edit across several files (issue 31): the same edits applied to every file
 * a list or glob names, in one call (995 files took 995 processes before).
 * Every file is read and edited in memory first, and nothing is written when
 * one fails (an old_text found more than once without replace_all, a listed
 * file that is not text); an edit a file lacks is skipped there, as sed skips
 * a line without its pattern, and a file a glob named that is not text is
 * skipped and said. Then the files that changed are written, each one's result
 * reported. In a lazy session the files are read from the zip and only those
 * that change are extracted.
 */
import { ZipfsError, quote } from '../base/errors.ts';
import { withBeneath } from '../files/beneath.ts';
import { writeWorkspaceFile } from '../files/edit.ts';
import { applyEditsToMany } from '../files/edit-in-worker.ts';
import type { TextEdit } from '../files/edit-text.ts';
import { unifiedDiff } from '../files/line-diff.ts';
import { readText } from '../files/read-text.ts';
import { encodeOrRefuse, type TextEncoding } from '../files/text-encoding.ts';
import type { FolderRules } from '../rules/folder-rules.ts';
import { problemList } from './delete-many.ts';
import { expandPaths, type Target } from './expand-paths.ts';
import type { ArchivedItem, ChangeOptions, Workspace } from './workspace.ts';

export interface EditManyRequest {
  patterns: readonly string[];
  edits: TextEdit[];
  dryRun: boolean;
  encoding?: TextEncoding;
  budgetMs: number;
  rules: FolderRules;
  change: ChangeOptions;
}

/** One file's result. */
export interface FileEdit {
  path: string;
  replacements: number;
  /** Why a file a glob named was left alone. */
  skipped?: string;
  failure?: string;
}

interface Read {
  target: Target;
  text?: { text: string; encoding: TextEncoding; sha256: string };
  skipped?: string;
}

/** Whether an error says the file is not text (or too big for edit), which a glob's file is skipped for. */
const notText = (error: unknown) => error instanceof ZipfsError && error.message.includes('edit works on text files');

/** What stops the call: each problem said, the first one's code the error's. */
class Problems {
  readonly list: string[] = [];
  code: ZipfsError['code'] | undefined;

  add(code: ZipfsError['code'], message: string): void {
    this.code ??= code;
    this.list.push(message);
  }
}

async function readAll(workspace: Workspace, request: EditManyRequest, problems: Problems): Promise<Read[]> {
  const archived: { read: Read; item: ArchivedItem }[] = [];
  const reads = withBeneath(workspace.root, (beneath) => {
    const targets = expandPaths(workspace, beneath, request.patterns, { globTypes: ['file'], dropNested: false });
    return targets.map((target): Read => {
      const read: Read = { target };
      if (target.type !== 'file') {
        const what = target.type === 'dir' ? 'folder' : 'link';
        problems.add('INVALID_INPUT', `${quote(target.relative || '/')} is a ${what}, not a text file`);
        return read;
      }
      const seen = workspace.stat(beneath, target.relative);
      if (seen.archived) archived.push({ read, item: seen.archived });
      else take(read, () => readText(seen.disk!.path, target.relative, request.encoding), problems);
      return read;
    });
  });
  for (const { read, item } of archived) {
    const file = await workspace.fileFor(item, request.change.limits);
    take(read, () => readText(file, read.target.relative, request.encoding), problems);
  }
  return reads;
}

function take(read: Read, get: () => NonNullable<Read['text']>, problems: Problems): void {
  try {
    read.text = get();
  } catch (error) {
    if (!(error instanceof ZipfsError)) throw error;
    if (read.target.globbed && notText(error)) read.skipped = 'not text';
    else problems.add(error.code, error.message);
  }
}

export interface EditManyAnswer {
  files: FileEdit[];
  /** The unified diffs of the files that changed, one after another. */
  diff: string;
}

export async function editMany(workspace: Workspace, request: EditManyRequest): Promise<EditManyAnswer> {
  const problems = new Problems();
  const reads = await readAll(workspace, request, problems);
  const texts = reads.filter((read) => read.text !== undefined);
  const edited = await applyEditsToMany(
    texts.map((read) => ({ text: read.text!.text, fileName: read.target.relative })),
    request.edits,
    { budgetMs: request.budgetMs, signal: request.change.signal, skipMissing: true },
    (_, error) => problems.add((error as ZipfsError).code, (error as ZipfsError).message),
  );
  if (problems.code)
    throw new ZipfsError(problems.code, `Nothing was written to any file: ${problemList(problems.list)}`);
  if (edited.every((after) => after!.replacements === 0))
    throw new ZipfsError(
      'EDIT_MISMATCH',
      `No edit matched in any of the ${texts.length} files; nothing was written. Check old_text (grep finds where ` +
        `it is), or name other files.`,
    );
  const changed = texts.flatMap((read, i) =>
    edited[i]!.replacements > 0
      ? [{ read, after: edited[i]!, bytes: new Uint8Array() as Uint8Array<ArrayBufferLike> }]
      : [],
  );
  for (const one of changed)
    one.bytes = encodeOrRefuse(one.after.text, one.read.text!.encoding, one.read.target.relative);
  if (!request.dryRun)
    await workspace.prepareChange(
      changed.map((one) => one.read.target.relative),
      request.change,
    );
  const results = new Map<Read, FileEdit>();
  const diffs: string[] = [];
  for (const { read, after, bytes } of changed) {
    const path = read.target.relative;
    const result: FileEdit = { path, replacements: after.replacements };
    try {
      if (!request.dryRun) writeWorkspaceFile(workspace.root, path, bytes, false, { rules: request.rules });
      diffs.push(unifiedDiff(path, read.text!.text, after.text).text);
    } catch (error) {
      if (!(error instanceof ZipfsError)) throw error;
      result.failure = `${error.code}: ${error.message}`;
    }
    results.set(read, result);
  }
  const files = reads.map(
    (read) =>
      results.get(read) ?? {
        path: read.target.relative,
        replacements: 0,
        ...(read.skipped ? { skipped: read.skipped } : {}),
      },
  );
  return { files, diff: diffs.join('') };
}
