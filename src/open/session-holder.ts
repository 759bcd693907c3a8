/**
 * Whether a zip's open session is another client's (issue 31: sessions shared by surprise). Over MCP,
 * `open` of a zip whose session another live connection of this server, or another live process (a
 * job, another MCP server), works in gives the caller a session of its own, and says whose the other
 * is: two agents sharing one workspace would sync each other's half-done edits, while two sessions
 * meet at sync, where a conflict is caught and merged.
 */
import type { Connection } from '../session/connections.ts';
import { otherHolder } from '../session/connections.ts';
import { ownerState, sameOwner, validOwner, type SessionOwner } from '../session/owner.ts';
import type { Session } from '../session/session-store.ts';

export interface Holder {
  /** The session's name. */
  session: string;
  /** Who works in it: another MCP connection (its client), or a process by pid. */
  holder: string;
  /** Since when (ISO time): the connection's start, or the session's creation. */
  since: string;
}

/**
 * Who else holds `session`, or undefined when it is the caller's (this MCP connection's, or on the CLI its job's,
 * `caller`), or nobody live's.
 */
export function heldByAnother(
  session: Session,
  connection: Connection | undefined,
  caller: SessionOwner | undefined,
): Holder | undefined {
  if (connection?.held.has(session.record.id)) return undefined;
  const name = session.record.name;
  const other = connection && otherHolder(connection, session.record.id);
  if (other) return { session: name, holder: `${other.client}, connected to this server`, since: other.since };
  const owner = validOwner(session.record.owner);
  if (!owner || sameOwner(owner, caller) || ownerState(owner) !== 'alive') return undefined;
  // A server's own sessions that no live connection of it holds are free (a client that went away).
  if (connection && owner.pid === process.pid) return undefined;
  return { session: name, holder: `process ${owner.pid}`, since: session.record.created_at };
}
