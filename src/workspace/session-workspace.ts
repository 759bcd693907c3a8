/**
 * A session's workspace: the one place that asks which kind of session it is
 * (its record says how it was opened). Everything above takes a Workspace.
 */
import type { Session } from '../session/session-store.ts';
import { EagerWorkspace } from './eager-workspace.ts';
import { LazyWorkspace } from './lazy-workspace.ts';
import type { Workspace } from './workspace.ts';

export function workspaceOf(session: Session): Workspace {
  return session.record.lazy ? new LazyWorkspace(session) : new EagerWorkspace(session);
}
