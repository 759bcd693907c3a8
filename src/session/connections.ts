/**
 * An MCP connection's memory of its sessions (issue 31: sessions shared by surprise). Each client
 * connection (stdio: the process; Streamable HTTP: one MCP session) is a Connection: the session it
 * opened, named or used last is where its calls without `session` go, instead of AMBIGUOUS_SESSION
 * once others are open, and the sessions it used are its own, so `open` of a zip whose session another
 * live connection holds gives this one a session of its own rather than sharing work by surprise.
 * Connections live in this process only; another process's hold is its session owner (session/owner.ts).
 */

export interface Connection {
  /** Who the client said it is (clientInfo name), as another connection's `open` names the holder. */
  client: string;
  /** When the connection began (ISO time). */
  since: string;
  /** The id of the session this connection opened, named or used last. */
  remembered?: string;
  /** Ids of every session this connection opened, named or used. */
  readonly held: Set<string>;
}

const live = new Set<Connection>();

/** A new connection, counted live until `endConnection`. */
export function beginConnection(client: string): Connection {
  const connection: Connection = { client, since: new Date().toISOString(), held: new Set() };
  live.add(connection);
  return connection;
}

export function endConnection(connection: Connection): void {
  live.delete(connection);
}

/** The connection remembers `sessionId` as its own and as where its unnamed calls go. */
export function rememberSession(connection: Connection | undefined, sessionId: string): void {
  if (!connection) return;
  connection.remembered = sessionId;
  connection.held.add(sessionId);
}

/** Another live connection of this process that holds `sessionId`, if any. */
export function otherHolder(connection: Connection, sessionId: string): Connection | undefined {
  for (const other of live) if (other !== connection && other.held.has(sessionId)) return other;
  return undefined;
}
