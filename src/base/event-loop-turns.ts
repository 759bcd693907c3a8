/**
 * Long loops (open's extraction, sync's writing) run on the thread that also
 * sends MCP progress notifications and receives cancellations: they must hand
 * the event loop a turn now and then, and stop when the caller gave up.
 */
const TURN_EVERY_MS = 50;

/** Gives the event loop a turn now and then; throws once the work was cancelled. */
export type Pause = () => Promise<void>;

/** A Pause that yields at most every 50 ms and checks `signal` after each turn. */
export function eventLoopTurns(signal?: AbortSignal): Pause {
  let lastTurn = Date.now();
  return async () => {
    if (Date.now() - lastTurn <= TURN_EVERY_MS) return;
    await new Promise((resolve) => setImmediate(resolve));
    lastTurn = Date.now();
    signal?.throwIfAborted();
  };
}
