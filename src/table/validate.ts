import * as v from 'valibot';
import type { Command } from './command.ts';
import { ZipfsError, quote } from '../base/errors.ts';

/** What is wrong with one argument, in a few words, never echoing more than a short prefix of it. */
function problem(issue: v.BaseIssue<unknown>): string {
  const key = v.getDotPath(issue);
  // A strict object reports a missing key and an unknown one alike; only the unknown one has a value.
  if (key && issue.input === undefined) return `argument "${key}" is missing`;
  if (issue.kind === 'schema' && issue.type === 'strict_object' && key) return `unknown argument ${quote(key)}`;
  const received = issue.received.length > 60 ? `${issue.received.slice(0, 60)}…` : issue.received;
  const what =
    issue.kind === 'schema'
      ? `expected ${issue.expected}, got ${received}`
      : issue.message.length > 160
        ? `${issue.message.slice(0, 160)}…`
        : issue.message;
  return key ? `argument "${key}": ${what}` : what;
}

/**
 * Validates raw arguments with the command's own schema, the same on both
 * surfaces. Every problem becomes one INVALID_INPUT error naming the argument.
 */
export function validateInput(command: Command, raw: unknown): Record<string, unknown> {
  const result = v.safeParse(command.input, raw ?? {});
  if (result.success) return result.output as Record<string, unknown>;
  const problems = result.issues.map(problem);
  const known = Object.keys(command.input.entries).join(', ') || 'none';
  throw new ZipfsError(
    'INVALID_INPUT',
    `Invalid input for ${command.name}: ${problems.join('; ')}. Arguments it takes: ${known}.`,
  );
}
