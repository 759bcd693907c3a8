/**
 * The zip's side of a merge: the zip as another writer left it, read as open reads an archive. It must pass the
 * checks open makes (names that climb out are PATH_TRAVERSAL, entries sharing bytes or lying sizes
 * ZIP_BOMB_DETECTED, damage and two entries at one path ZIP_INVALID: archive-checks.ts, or the checks of an open
 * that extracts nothing where limits are on what is extracted), and its entries are placed at the paths open gives
 * them. What the merge takes from it into the workspace is read and checked (CRC-32, sizes) before anything is
 * written, as open checks what it extracts (with open's size limits too where they are on what is extracted). Its
 * identity is noted, so that a zip replaced while the merge runs is a conflict, not a mixed archive.
 */
import path from 'node:path';
import { ZipfsError, throwRefusal } from '../base/errors.ts';
import type { Limits } from '../rules/limits.ts';
import { param } from '../base/message-marks.ts';
import { checkArchive } from '../open/archive-checks.ts';
import { DeclaredSizes } from '../rules/declared-sizes.ts';
import { type FolderRules } from '../rules/folder-rules.ts';
import { unextractedPlaces } from '../workspace/unextracted-places.ts';
import {
  FileSource,
  layoutFaults,
  locateEntryData,
  openRefusal,
  readCentralDirectory,
  readPackedDirectory,
  streamEntryData,
  type CodePage,
} from '../zip/index.ts';
import type { Step } from './merge-plan.ts';
import type { PlacedEntry } from './zip-changes.ts';
import { assertSameZip, changedSince, fileVersion, replacedDuringMerge } from './zip-identity.ts';

export interface ZipNowRequest {
  zipPath: string;
  /**
   * Where open's limits apply (Base.limitsOn): to what is extracted, the zip is checked as an open that extracts
   * nothing checks it.
   */
  limitsOn: 'archive' | 'extracted';
  /** Whether a forced sync may replace the zip (Base.forceable): the refusal offers it then. */
  forceable: boolean;
  rules: FolderRules;
  limits: Limits;
  /** The folder the session's workspace is in (open's path-length limit). */
  workspaces: string;
  /** The session's encoding of names without the UTF-8 flag (zip/names.ts). */
  nameEncoding: CodePage | undefined;
}

export interface ZipNow {
  now: PlacedEntry[];
  /** The zip's identity as read (zip-identity.ts). */
  version: string | undefined;
}

/** The zip now, checked as open checks it, its entries placed; a refusal names the zip and what to do. */
export function readZipNow(request: ZipNowRequest): ZipNow {
  const { zipPath } = request;
  const version = fileVersion(zipPath);
  try {
    const source = new FileSource(zipPath);
    try {
      const directory = readCentralDirectory(source, request.nameEncoding);
      let now: PlacedEntry[];
      if (request.limitsOn === 'extracted') {
        const place = unextractedPlaces(readPackedDirectory(source, request.nameEncoding), request.rules);
        now = directory.entries.map((entry, i) => ({ entry, ...place(i) }));
        for (const fault of layoutFaults(source, directory)) throw openRefusal(fault);
      } else {
        now = checkArchive(source, directory, request.limits, {
          workspaces: request.workspaces,
          rules: request.rules,
        }).items;
      }
      assertSameZip(zipPath, version); // one zip read, not the halves of two
      return { now, version };
    } finally {
      source.close();
    }
  } catch (error) {
    throw mergeRefusal(error, request, version);
  }
}

/**
 * Reads every entry the merge takes from the zip into the workspace (`onDisk`: where not every
 * entry is on disk, only what is there), checking its data as open checks what it extracts:
 * damage is refused before the workspace or the zip is touched.
 */
export async function checkTakenData(
  request: ZipNowRequest,
  steps: readonly Step[],
  version: string | undefined,
  onDisk?: (relative: string) => boolean,
): Promise<Set<number>> {
  const { zipPath } = request;
  try {
    const taken = steps.filter(
      (step) => step.kind === 'zip' && !step.quiet && step.type !== 'dir' && (!onDisk || onDisk(step.path)),
    ) as Extract<Step, { kind: 'zip' }>[];
    // An open that extracts nothing checked no sizes: what the merge takes is held to open's limits as an extraction is
    // (where the limits are on the archive, checkArchive held all of it to them).
    if (request.limitsOn === 'extracted') {
      const sizes = new DeclaredSizes(request.limits, throwRefusal, (at) => taken[at]!.entry.name);
      taken.forEach((step, at) => sizes.add(at, step.entry.uncompressedSize, step.entry.compressedSize));
      sizes.finish();
    }
    const source = new FileSource(zipPath);
    try {
      for (const { entry } of taken) await streamEntryData(source, entry, locateEntryData(source, entry), () => {});
    } finally {
      source.close();
    }
    assertSameZip(zipPath, version);
    return new Set(taken.map(({ entry }) => entry.index));
  } catch (error) {
    throw mergeRefusal(error, request, version);
  }
}

/**
 * Open's refusal of the zip, said as a merge's: which zip, that nothing was written, and the ways
 * on. A zip replaced while it was read is a conflict, whatever the reading made of its halves.
 */
function mergeRefusal(error: unknown, { zipPath, forceable }: ZipNowRequest, version: string | undefined): unknown {
  if (changedSince(zipPath, version)) return replacedDuringMerge(zipPath);
  if (!(error instanceof ZipfsError) || error.code === 'CONFLICT_DETECTED') return error;
  const force = !forceable ? '' : `, or sync with ${param('force')} to replace it with this workspace`;
  return new ZipfsError(
    error.code,
    `The zip ${zipPath}, as another writer left it, is refused as open would refuse it: ` +
      `${error.message.replace(/\s*$/, '')} Nothing was written and the workspace keeps its changes: restore or ` +
      `repair the zip, then merge again${force}.`,
    { cause: error },
  );
}

/** The folder a session's workspace is in: `<workspaces>/<name>` holds `contents`. */
export function workspacesOf(sessionDir: string): string {
  return path.dirname(sessionDir);
}
