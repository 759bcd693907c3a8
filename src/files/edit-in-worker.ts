/**
 * Applies edits, the regex ones in a worker thread under a time budget
 * (ZIPFS_GREP_TIME_BUDGET_MS, the budget grep's patterns have): a pattern that
 * backtracks catastrophically is stopped and refused with LIMIT_EXCEEDED, and
 * nothing is written. Exact-text edits need no worker and stay on this thread.
 */
import { ZipfsError, quote } from '../base/errors.ts';
import { workerPath } from '../base/worker-path.ts';
import { applyEdits, checkPatterns, type TextEdit } from './edit-text.ts';
import type { EditJob, EditReport } from './edit-worker.ts';

export function applyEditsTimed(
  text: string,
  edits: TextEdit[],
  fileName: string,
  budgetMs: number,
  signal?: AbortSignal,
): Promise<{ text: string; replacements: number }> {
  if (!edits.some((edit) => edit.regex)) return Promise.resolve(applyEdits(text, edits, fileName));
  checkPatterns(edits); // a malformed pattern is INVALID_INPUT at once, with no thread started
  signal?.throwIfAborted();
  const worker = new Worker(workerPath('files/edit-worker.ts'));
  return new Promise((resolve, reject) => {
    // A regex deep in backtracking may take a moment to notice termination: unref it so it cannot hold the process
    // open.
    const stop = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', cancel);
      worker.terminate();
      worker.unref();
    };
    const cancel = () => {
      stop();
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', cancel, { once: true });
    const timer = setTimeout(() => {
      stop();
      reject(
        new ZipfsError(
          'LIMIT_EXCEEDED',
          `The edit's regular expression ran for the whole ${budgetMs} ms time budget ` +
            `on ${quote(fileName)} without finishing (it may backtrack catastrophically, as nested repeats like ` +
            `(a+)+ do); nothing was written. Simplify the pattern, or raise ZIPFS_GREP_TIME_BUDGET_MS.`,
        ),
      );
    }, budgetMs);
    worker.onmessage = (event: MessageEvent<EditReport>) => {
      stop();
      const report = event.data;
      if (report.ok) resolve({ text: report.text, replacements: report.replacements });
      else reject(new ZipfsError(report.code, report.message));
    };
    worker.onerror = (event) => {
      stop();
      reject(new ZipfsError('INTERNAL_ERROR', `The edit failed: ${event.message}.`));
    };
    worker.postMessage({ text, edits, fileName } satisfies EditJob);
  });
}
