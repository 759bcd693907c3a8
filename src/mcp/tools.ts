/**
 * The MCP tool list, generated from the dispatch table: names, descriptions,
 * annotations, and JSON Schemas converted from the same valibot schemas the
 * handlers validate with.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type { Command } from '../table/command.ts';
import { MCP_TOOL_PREFIX } from '../table/registry.ts';

/**
 * valibot's JSON Schema without what says nothing: the $schema URI, an empty
 * `required`, and a boolean's `"default": false`. Every tools/list costs an
 * agent context, so every byte is paid again and again. An enum keeps its
 * `"type"`: some clients (Gemini) refuse a schema node without one.
 */
function jsonSchema(schema: Command['input']): Record<string, unknown> {
  // additionalProperties: false is left out too (500 bytes over the list): an unknown argument
  // is still refused, with INVALID_INPUT naming it and the arguments the tool takes.
  const { $schema: _, additionalProperties: __, ...rest } = toJsonSchema(schema) as Record<string, unknown>;
  return lean(rest) as Record<string, unknown>;
}

function lean(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(lean);
  if (typeof node !== 'object' || node === null) return node;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(node)) out[key] = lean(value);
  if (Array.isArray(out.required) && out.required.length === 0) delete out.required;
  if (out.type === 'boolean' && out.default === false) delete out.default; // an absent boolean is false everywhere
  // a literal is a node too: it gets its type
  if ('const' in out && out.type === undefined) out.type = typeof out.const;
  return out;
}

/**
 * An output schema without its `required` lists. They tell a code generator which result fields
 * are always there, and cost every agent's context on each tools/list (about 1.3 KB of the whole
 * list's 20,000-byte budget); the field descriptions already say which are there only sometimes
 * ("if renamed", "absent at the end"), and a result that has them still validates.
 */
function withoutRequired(node: unknown): Record<string, unknown> {
  const strip = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(strip);
    if (typeof value !== 'object' || value === null) return value;
    const out: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value))
      if (key !== 'required')
        out[key] =
          key === 'properties'
            ? Object.fromEntries(Object.entries(child as object).map(([name, schema]) => [name, strip(schema)]))
            : strip(child);
    return out;
  };
  return strip(node) as Record<string, unknown>;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: Partial<Command['annotations']>;
}

/** What MCP assumes of a tool that says nothing (the spec's defaults). */
const DEFAULT_HINTS: Record<keyof Command['annotations'], boolean> = {
  readOnlyHint: false,
  destructiveHint: true,
  idempotentHint: false,
  openWorldHint: true,
};

/**
 * The hints that differ from MCP's defaults: the same meaning in fewer bytes,
 * since every tools/list costs an agent context. The title is a top-level field.
 */
function hints(annotations: Command['annotations']): Partial<Command['annotations']> {
  const differing: Record<string, boolean> = {};
  for (const [key, value] of Object.entries(annotations) as [keyof Command['annotations'], boolean][]) {
    // A read-only tool's destructive and idempotent hints mean nothing (the spec says so); leave them out.
    if (
      value !== DEFAULT_HINTS[key] &&
      !(key !== 'readOnlyHint' && key !== 'openWorldHint' && annotations.readOnlyHint)
    )
      differing[key] = value;
  }
  return differing;
}

/**
 * The output schema describes the result only: errors are `isError` results
 * whose text block carries `{"error": {"code", "message"}}` and that have no
 * structuredContent, which SDK clients do not validate against the schema.
 */
export function toolDefinition(command: Command): ToolDefinition {
  return {
    name: `${MCP_TOOL_PREFIX}${command.name}`,
    title: command.title,
    description: command.description,
    inputSchema: jsonSchema(command.input),
    outputSchema: withoutRequired(jsonSchema(command.output)),
    annotations: hints(command.annotations),
  };
}
