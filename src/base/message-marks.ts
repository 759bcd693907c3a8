/**
 * Error messages say what to do next, in the words of whoever reads them: a
 * shell user types `--force`, an agent passes `force: true`. Messages mark
 * options and calls with `param()` and `invocation()`; each surface renders
 * the marks its own way (cli/render-message.ts, mcp/render-message.ts), so no
 * message has to say both.
 */
const OPEN = '\uE000';
const CLOSE = '\uE001';
const MARK = /\uE000([pc])([^\uE001]*)\uE001/g;

/** A list is a list parameter (restore's `paths`): MCP shows it as JSON, the CLI as one word per item. */
export type ParamValue = string | number | boolean | readonly string[];

/** An option to pass: `param('force')` (a switch) or `param('stale', '7d')`. */
export function param(name: string, value: ParamValue = true): string {
  return `${OPEN}p${JSON.stringify([name, value])}${CLOSE}`;
}

/** A whole call to suggest: `invocation('close', { session: 'q4', force: true })`. */
export function invocation(operation: string, args: Record<string, ParamValue> = {}): string {
  return `${OPEN}c${JSON.stringify([operation, args])}${CLOSE}`;
}

export interface MarkRenderer {
  param(name: string, value: ParamValue): string;
  invocation(operation: string, args: Record<string, ParamValue>): string;
}

export function renderMarks(message: string, renderer: MarkRenderer): string {
  return message.replace(MARK, (_, kind: string, body: string) => {
    const [name, value] = JSON.parse(body) as [string, never];
    return kind === 'p' ? renderer.param(name, value) : renderer.invocation(name, value);
  });
}

/** renderMarks over every string inside a result (prune's reasons, notes). */
export function renderMarksDeep<T>(value: T, renderer: MarkRenderer): T {
  if (typeof value === 'string') return (value.includes(OPEN) ? renderMarks(value, renderer) : value) as T;
  if (Array.isArray(value)) return value.map((item) => renderMarksDeep(item, renderer)) as T;
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, renderMarksDeep(item, renderer)])) as T;
  }
  return value;
}
