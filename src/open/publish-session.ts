/**
 * The last step of open: the staging folder becomes the session, by one rename
 * under a free name (publish). An open that asked for no name publishes under
 * open's lock on the zip (session/open-lock.ts) and answers with the session
 * another open of the zip published meanwhile, if there is one (publishOnce):
 * opens at the same moment end as they do one after the other.
 */
import fs from 'node:fs';
import path from 'node:path';
import { isSystemError } from '../base/errors.ts';
import { sessionPaths, workspacesDir } from '../session/data-dir.ts';
import { writeManifest, type EntryRecord, type SessionRecord } from '../session/manifest.ts';
import { assertNameFree, deriveName, freeName } from '../session/session-name.ts';
import { loadSession, sessionOf } from '../session/session-store.ts';
import { withOpenLock } from '../session/open-lock.ts';
import { discardStaging, releaseStaging } from './staging.ts';
import type { Opened, OpenRequest } from './open-request.ts';

/** The name a publish gave the session, or that of the session it found and shared instead. */
export interface Published {
  name: string;
  shared: boolean;
}

/** The session `publishOnce` left: the one it published, or the one it shared. */
export function publishedSession(home: string, published: Published): Opened {
  const session = loadSession(home, published.name)!;
  return published.shared ? { ...session, shared: true } : session;
}

/** How long an open waits for another open of the same zip to publish: a lookup and a rename. */
const OPEN_LOCK_WAIT_MS = 60_000;

/**
 * publish, or, for an open that asked for no name (`share`), the session another open of the zip
 * published meanwhile: under open's lock on the zip (open-lock.ts), so opens at the same moment end
 * as they do one after the other. The staging folder of an open that shares is removed.
 */
export function publishOnce(
  request: OpenRequest,
  staging: string,
  record: SessionRecord,
  entries: EntryRecord[],
): Published | Promise<Published> {
  if (!request.share) return { name: publish(request.home, staging, record, entries, request.name), shared: false };
  return withOpenLock(
    request.home,
    record.source_path,
    () => {
      const existing = sessionOf(request.home, record.source_path);
      if (!existing) return { name: publish(request.home, staging, record, entries, undefined), shared: false };
      discardStaging(staging);
      return { name: existing.record.name, shared: true };
    },
    { waitMs: OPEN_LOCK_WAIT_MS, signal: request.signal },
  );
}

/** Writes the manifest and renames the staging folder into place under a free name. */
export function publish(
  home: string,
  staging: string,
  record: SessionRecord,
  entries: EntryRecord[],
  explicitName: string | undefined,
): string {
  const taken = (name: string) => fs.existsSync(sessionPaths(home, name).dir);
  // A remote archive is named after its URL, not its mirror file.
  const base = explicitName ?? deriveName(record.remote ? new URL(record.remote.url).pathname : record.source_path);
  for (;;) {
    const name = explicitName ?? freeName(base, taken);
    writeManifest(path.join(staging, 'manifest.jsonl'), { ...record, name }, entries);
    try {
      fs.renameSync(staging, path.join(workspacesDir(home), name));
      releaseStaging(staging);
      return name;
    } catch (error) {
      // Another open took the name between our check and the rename.
      if (!isSystemError(error, 'ENOTEMPTY', 'EEXIST')) throw error;
      if (explicitName !== undefined) assertNameFree(home, name);
    }
  }
}
