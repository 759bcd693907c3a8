/**
 * Everything open checks of an archive before it writes a byte, in open's
 * order: the plan from the central directory (names, clashes, encryption and
 * methods, declared sizes against the limits: extraction-plan.ts), then every
 * entry's place in the file and its local header (layout.ts), then folder
 * entries' (empty) data. Open stops at the first refusal; inspect runs these
 * same checks and collects every refusal, so it warns of exactly what open
 * refuses, with open's codes and words, from one copy of the rules. Only
 * file data is left to extraction (CRC-32, inflated sizes): reading it all
 * is what open costs.
 */
import { ZipfsError, throwRefusal, type Refuse } from '../base/errors.ts';
import type { Limits } from '../rules/limits.ts';
import {
  FileSource,
  layoutFaults,
  openRefusal,
  readEntryData,
  type CentralDirectory,
  type ZipEntry,
} from '../zip/index.ts';
import { planExtraction, type ExtractionPlan } from './extraction-plan.ts';
import { checkPathsFit } from '../rules/entry-paths.ts';
import type { WorkspaceTarget } from './workspace-rules.ts';
import { phase } from '../base/phase-trace.ts';

/** Read-ahead for the pass over local headers: a large window would read megabytes of data it skips. */
const LAYOUT_WINDOW_BYTES = 64 * 1024;

/**
 * The plan open extracts by (`source`: the file `directory` was read from), once every check passed; with a collecting
 * `refuse`, a best effort past the refusals.
 */
export function checkArchive(
  source: FileSource,
  directory: CentralDirectory,
  limits: Limits,
  target: WorkspaceTarget,
  refuse: Refuse = throwRefusal,
): ExtractionPlan {
  const plan = planExtraction(directory, limits, refuse, target.rules);
  phase('open: check: plan');
  checkPathsFit(plan.items, target.workspaces, refuse);
  // The same open file the directory came from: a path opened again may be another archive by now
  // (a sync renames its new one over it), whose headers would all disagree with this directory.
  // An archive one read window holds is read whole by the first header, and extraction finds every entry's data in
  // that window: a small window would read 64 KiB at each header, and the data again.
  const whole = source.fitsInWindow;
  const headers = whole ? source : source.sharing(LAYOUT_WINDOW_BYTES);
  try {
    const faulty = new Set<ZipEntry>();
    for (const fault of layoutFaults(headers, directory)) {
      faulty.add(fault.entry);
      refuse(openRefusal(fault));
    }
    phase('open: check: layout');
    // A folder's data is empty, but sync copies it and other readers verify it: checked like a file's
    // (unless its headers are already refused: they say where that data would be).
    for (const item of plan.items) {
      if (item.type !== 'dir' || faulty.has(item.entry)) continue;
      try {
        readEntryData(headers, item.entry);
      } catch (error) {
        if (!(error instanceof ZipfsError)) throw error;
        refuse(error);
      }
    }
  } finally {
    if (!whole) headers.close();
  }
  return plan;
}
