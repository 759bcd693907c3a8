/**
 * Applies edits, the regex ones in a worker thread under a time budget
 * (ZIPFS_GREP_TIME_BUDGET_MS, the budget grep's patterns have): a pattern that
 * backtracks catastrophically is stopped and refused with LIMIT_EXCEEDED, and
 * nothing is written. Exact-text edits need no worker and stay on this thread.
 * An edit of many files (edit with paths) runs them all through one worker,
 * each file with the whole budget: a thread per file would cost more than the
 * edits.
 */
import { ZipfsError, quote } from '../base/errors.ts';
import { workerPath } from '../base/worker-path.ts';
import { applyEdits, checkPatterns, type TextEdit } from './edit-text.ts';
import type { EditJob, EditReport } from './edit-worker.ts';

export interface EditOptions {
  /** Each file's budget for the regex edits. */
  budgetMs: number;
  signal?: AbortSignal;
  /** An edit that finds nothing in a file is skipped there (edit with several files), not a mismatch. */
  skipMissing?: boolean;
}

export interface EditedText {
  text: string;
  replacements: number;
}

/** One worker, its jobs run one after another, each stopped at its budget. */
class EditThread {
  private worker: Worker | undefined;

  constructor(private readonly options: EditOptions) {}

  run(job: EditJob): Promise<EditedText> {
    const { budgetMs, signal } = this.options;
    signal?.throwIfAborted();
    this.worker ??= new Worker(workerPath('files/edit-worker.ts'));
    const worker = this.worker;
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', cancel);
      };
      const cancel = () => {
        settle();
        this.close();
        reject(signal!.reason);
      };
      signal?.addEventListener('abort', cancel, { once: true });
      const timer = setTimeout(() => {
        settle();
        this.close();
        reject(
          new ZipfsError(
            'LIMIT_EXCEEDED',
            `The edit's regular expression ran for the whole ${budgetMs} ms time budget ` +
              `on ${quote(job.fileName)} without finishing (it may backtrack catastrophically, as nested repeats ` +
              `like (a+)+ do); nothing was written. Simplify the pattern, or raise ZIPFS_GREP_TIME_BUDGET_MS.`,
          ),
        );
      }, budgetMs);
      worker.onmessage = (event: MessageEvent<EditReport>) => {
        settle();
        const report = event.data;
        if (report.ok) resolve({ text: report.text, replacements: report.replacements });
        else reject(new ZipfsError(report.code, report.message));
      };
      worker.onerror = (event) => {
        settle();
        this.close();
        reject(new ZipfsError('INTERNAL_ERROR', `The edit failed: ${event.message}.`));
      };
      worker.postMessage(job);
    });
  }

  /** A regex deep in backtracking may take a moment to notice termination: unref'd, it cannot hold the process open. */
  close(): void {
    this.worker?.terminate();
    this.worker?.unref();
    this.worker = undefined;
  }
}

export function applyEditsTimed(
  text: string,
  edits: TextEdit[],
  fileName: string,
  options: EditOptions,
): Promise<EditedText> {
  return applyEditsToMany([{ text, fileName }], edits, options, () => {}).then((all) => all[0]!);
}

/**
 * The edits applied to each file's text in turn; `each` hears every file's outcome (its error, for a caller that
 * gathers them) before the next runs. A budget overrun or a cancel stops them all.
 */
export async function applyEditsToMany(
  files: { text: string; fileName: string }[],
  edits: TextEdit[],
  options: EditOptions,
  each: (index: number, error: unknown) => void,
): Promise<(EditedText | undefined)[]> {
  const skipMissing = options.skipMissing === true;
  const regex = edits.some((edit) => edit.regex);
  if (regex) checkPatterns(edits); // a malformed pattern is INVALID_INPUT at once, with no thread started
  const thread = regex ? new EditThread(options) : undefined;
  const done: (EditedText | undefined)[] = [];
  try {
    for (const [index, { text, fileName }] of files.entries()) {
      try {
        done.push(
          thread
            ? await thread.run({ text, edits, fileName, skipMissing })
            : applyEdits(text, edits, fileName, skipMissing),
        );
      } catch (error) {
        if (files.length === 1 || !(error instanceof ZipfsError) || error.code === 'LIMIT_EXCEEDED') throw error;
        options.signal?.throwIfAborted();
        each(index, error);
        done.push(undefined);
      }
    }
  } finally {
    thread?.close();
  }
  return done;
}
