import * as v from 'valibot';
import type { Command } from './command.ts';
import { ZipfsError } from './errors.ts';

/**
 * Validates raw arguments with the command's own schema, the same on both
 * surfaces. Every problem becomes one INVALID_INPUT error naming the argument.
 */
export function validateInput(command: Command, raw: unknown): Record<string, unknown> {
  const result = v.safeParse(command.input, raw ?? {});
  if (result.success) return result.output as Record<string, unknown>;
  const problems = result.issues.map((issue) => {
    const key = v.getDotPath(issue);
    if (issue.kind === 'schema' && issue.type === 'strict_object' && key) return `unknown argument "${key}"`;
    if (issue.input === undefined && key) return `argument "${key}" is required`;
    return key ? `argument "${key}": ${issue.message}` : issue.message;
  });
  const known = Object.keys(command.input.entries).join(', ') || 'none';
  throw new ZipfsError('INVALID_INPUT', `Invalid input for ${command.name}: ${problems.join('; ')}. Arguments it takes: ${known}.`);
}
