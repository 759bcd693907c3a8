/** Reads what the CLI needs to know from a valibot schema: base type, default, description. */
import type { GenericSchema } from 'valibot';

interface SchemaNode {
  type: string;
  wrapped?: SchemaNode;
  pipe?: SchemaNode[];
  default?: unknown;
  description?: string;
  options?: unknown[];
}

export interface FieldInfo {
  /** The innermost schema type: 'string', 'number', 'boolean', 'picklist', ... */
  type: string;
  optional: boolean;
  default: unknown;
  description: string;
  options?: string[];
}

export function fieldInfo(schema: GenericSchema): FieldInfo {
  let node = schema as unknown as SchemaNode;
  let optional = false;
  let fallback: unknown;
  if (node.type === 'optional') {
    optional = true;
    fallback = node.default;
    node = node.wrapped!;
  }
  const description = (node.pipe ?? []).find((step) => step.type === 'description')?.description ?? '';
  return { type: node.type, optional, default: fallback, description, options: node.options as string[] | undefined };
}
