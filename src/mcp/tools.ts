/**
 * The MCP tool list, generated from the dispatch table: names, descriptions,
 * annotations, and JSON Schemas converted from the same valibot schemas the
 * handlers validate with.
 */
import { toJsonSchema } from '@valibot/to-json-schema';
import type { Command } from '../command.ts';
import { MCP_TOOL_PREFIX } from '../registry.ts';

const ERROR_ENVELOPE = {
  type: 'object',
  properties: {
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' } },
      required: ['code', 'message'],
    },
  },
  required: ['error'],
} as const;

function jsonSchema(schema: Command['input']): Record<string, unknown> {
  const { $schema: _, ...rest } = toJsonSchema(schema) as Record<string, unknown>;
  return rest;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: Record<string, unknown>;
  outputSchema: Record<string, unknown>;
  annotations: Command['annotations'] & { title: string };
}

/**
 * The output schema admits the error envelope as well as the result: error
 * results carry `structuredContent: { error }`, and SDK clients up to at least
 * 1.32 validate structuredContent even when `isError` is set
 * (typescript-sdk issue #1943), which would otherwise hide every error.
 */
export function toolDefinition(command: Command): ToolDefinition {
  return {
    name: `${MCP_TOOL_PREFIX}${command.name}`,
    title: command.title,
    description: command.description,
    inputSchema: jsonSchema(command.input),
    outputSchema: { type: 'object', anyOf: [jsonSchema(command.output), ERROR_ENVELOPE] },
    annotations: { title: command.title, ...command.annotations },
  };
}
