/**
 * A real session for in-process tests of the sync planners: the zip is opened
 * by the compiled binary (as a user would), then its base and workspace
 * diff are read by the modules under test. The session modules' entry points
 * are named here only, so a reshuffle of src/sync and src/session (the
 * Workspace seam) changes this file, not every test that uses it.
 */
import { loadSession, type Session } from '../../src/session/session-store.ts';
import type { EntryRecord } from '../../src/session/manifest.ts';
import type { Base } from '../../src/workspace/base.ts';
import { workspaceOf } from '../../src/workspace/session-workspace.ts';
import { diffWorkspace, type WorkspaceDiff } from '../../src/sync/workspace-diff.ts';
import type { sandbox } from './cli.ts';

export interface Opened {
  session: Session;
  /** The workspace folder (what `open --json` calls workspace_path). */
  root: string;
}

/** Opens `zip` with the binary (`--lazy` when asked) and loads the session it made. */
export function openWith(
  box: ReturnType<typeof sandbox>,
  zip: string,
  options: { name: string; lazy?: boolean },
): Opened {
  const args = ['open', zip, '--name', options.name, '--json', ...(options.lazy ? ['--lazy'] : [])];
  const opened = box.run(args);
  if (opened.code !== 0) throw new Error(`open failed: ${opened.stdout}${opened.stderr}`);
  const session = loadSession(box.home, options.name);
  if (!session) throw new Error(`no session ${options.name} after open`);
  return { session, root: opened.json.workspace_path };
}

/**
 * The session's base as sync reads it (workspace/base.ts), the workspace's diff against it, and the entries it
 * compared, read now.
 */
export function diffNow(session: Session): { base: Base; entries: EntryRecord[]; diff: WorkspaceDiff } {
  const base = workspaceOf(session).base();
  const diff = diffWorkspace(session.contents, base);
  return { base, entries: diff.entries, diff };
}
