/**
 * The fields of a command's result, read from its output schema (names,
 * types, whether always present) and described from output-docs.ts: the
 * OUTPUT part of `zipfs help CMD`, and the names and types of the README's
 * JSON reference (scripts/readme/json-reference.ts).
 */
import type { Command } from '../table/command.ts';
import { OUTPUT_DOCS } from './output-docs.ts';

interface Node {
  type: string;
  wrapped?: Node;
  item?: Node;
  entries?: Record<string, Node>;
  pipe?: { type: string }[];
  options?: unknown[];
  literal?: unknown;
}

export interface OutputField {
  /** `name`, or `pruned[].reason` for a field of a list's items, `sync.files_added` of an object's. */
  path: string;
  type: string;
  /** Present only in some results (optional in the schema). */
  sometimes: boolean;
  description: string;
}

function unwrap(node: Node): { node: Node; optional: boolean; nullable: boolean } {
  let optional = false;
  let nullable = false;
  while (node.wrapped) {
    if (node.type === 'optional') optional = true;
    if (node.type === 'nullable') nullable = true;
    node = node.wrapped;
  }
  return { node, optional, nullable };
}

function typeName(node: Node): string {
  switch (node.type) {
    case 'number':
      return node.pipe?.some((step) => step.type === 'integer') ? 'integer' : 'number';
    case 'array':
      return `list of ${typeName(unwrap(node.item!).node)
        .replace(/^object$/, 'objects')
        .replace(/^(string|integer|boolean)$/, '$1s')}`;
    case 'picklist':
      return (node.options ?? []).map((o) => JSON.stringify(o)).join(' | ');
    case 'literal':
      return JSON.stringify(node.literal);
    case 'strict_object':
      return 'object';
    default:
      return node.type;
  }
}

/** Every field of the command's result, parents before their fields, in schema order. */
export function outputFields(command: Command): OutputField[] {
  const docs = OUTPUT_DOCS[command.name] ?? {};
  const fields: OutputField[] = [];
  const visit = (entries: Record<string, Node>, prefix: string) => {
    for (const [key, schema] of Object.entries(entries)) {
      const path = `${prefix}${key}`;
      const { node, optional, nullable } = unwrap(schema);
      fields.push({
        path,
        type: `${typeName(node)}${nullable ? ' or null' : ''}`,
        sometimes: optional,
        description: docs[path] ?? '',
      });
      const item = node.type === 'array' ? unwrap(node.item!).node : undefined;
      if (item?.entries) visit(item.entries, `${path}[].`);
      else if (node.entries) visit(node.entries, `${path}.`);
    }
  };
  visit((command.output as unknown as Node).entries!, '');
  return fields;
}

/** The OUTPUT part of a command's help: what `--json` prints, field by field. */
export function renderOutputFields(command: Command): string {
  const fields = outputFields(command);
  const width = Math.max(...fields.map((f) => f.path.length));
  const lines = fields.map(
    (f) => `  ${f.path.padEnd(width)}  ${f.type}${f.sometimes ? ', sometimes' : ''}: ${f.description}`,
  );
  return `OUTPUT (--json prints this object; "sometimes": only in some results)\n\n${lines.join('\n')}`;
}
