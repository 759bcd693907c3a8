/**
 * A command's result as its human output shows it. Every string its output
 * schema marks as a name (commands/schemas.ts, NAME) is escaped as git escapes
 * paths (format/quote-name.ts), whatever the command: render() and note() only
 * ever see names that cannot act on a terminal, and a new command gets this by
 * declaring its names, not by remembering to escape them. --json and MCP send
 * the result itself, names exact.
 */
import { NAME } from '../commands/schemas.ts';

/** The parts of a valibot schema this walk reads. */
interface SchemaNode {
  type: string;
  wrapped?: SchemaNode;
  item?: SchemaNode;
  entries?: Record<string, SchemaNode>;
  pipe?: SchemaNode[];
}

const WRAPPERS = new Set(['optional', 'nullable', 'nullish', 'exact_optional', 'undefinedable']);

/** `value` with each name `show` turned into its terminal form; everything else as it is. */
export function terminalView<T>(value: T, schema: unknown, show: (name: string) => string): T {
  let node = schema as SchemaNode;
  while (WRAPPERS.has(node.type) && node.wrapped) node = node.wrapped;
  if (typeof value === 'string') return (node === NAME || node.pipe?.[0] === NAME ? show(value) : value) as T;
  if (Array.isArray(value)) return (node.item ? value.map((item) => terminalView(item, node.item, show)) : value) as T;
  if (typeof value === 'object' && value !== null && node.entries) {
    const entries = node.entries;
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, entries[key] ? terminalView(item, entries[key], show) : item]),
    ) as T;
  }
  return value;
}
