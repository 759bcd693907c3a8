/**
 * edit's worker for regex edits: a JavaScript regular expression cannot be
 * interrupted, so a pattern that backtracks for ever runs here, where the
 * caller can terminate it at its time budget (edit-in-worker.ts), never
 * hanging the CLI or the MCP server inside the session's lock.
 */
import { ZipfsError } from '../base/errors.ts';
import { applyEdits, type TextEdit } from './edit-text.ts';

export interface EditJob {
  text: string;
  edits: TextEdit[];
  fileName: string;
  /** An edit that finds nothing is skipped (edit-text.ts). */
  skipMissing?: boolean;
}

export type EditReport =
  | { ok: true; text: string; replacements: number }
  | { ok: false; code: ZipfsError['code']; message: string };

// The worker global's onmessage; bun-types declares it only alongside the DOM library.
(globalThis as unknown as { onmessage: (event: MessageEvent<EditJob>) => void }).onmessage = (event) => {
  const { text, edits, fileName, skipMissing } = event.data;
  let report: EditReport;
  try {
    report = { ok: true, ...applyEdits(text, edits, fileName, skipMissing) };
  } catch (error) {
    report =
      error instanceof ZipfsError
        ? { ok: false, code: error.code, message: error.message }
        : { ok: false, code: 'INTERNAL_ERROR', message: `The edit failed: ${(error as Error).message}.` };
  }
  postMessage(report);
};
