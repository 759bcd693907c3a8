/**
 * Long loops (open's extraction, sync's writing) run on the thread that also
 * sends MCP progress notifications and receives cancellations: they must hand
 * the event loop a turn now and then, and stop when the caller gave up.
 */
const TURN_EVERY_MS = 50;

/**
 * Gives the event loop a turn now and then; throws once the work was cancelled. Undefined when no turn is due: a loop
 * over thousands of entries awaits only the turns (an await per entry cost a one-file sync of 2,500 entries ~2 ms).
 */
export type Pause = () => Promise<void> | undefined;

/** A Pause that yields at most every 50 ms and checks `signal` after each turn. */
export function eventLoopTurns(signal?: AbortSignal): Pause {
  let lastTurn = Date.now();
  const turn = async () => {
    await new Promise((resolve) => setImmediate(resolve));
    lastTurn = Date.now();
    signal?.throwIfAborted();
  };
  return () => (Date.now() - lastTurn <= TURN_EVERY_MS ? undefined : turn());
}
