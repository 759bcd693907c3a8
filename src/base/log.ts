/**
 * Diagnostics go to stderr, always: in MCP mode stdout belongs to the protocol.
 * consola is loaded on first use, not at start-up: importing it costs about
 * 30 ms, more than the rest of a CLI call, and most calls never log.
 */
import type { ConsolaInstance } from 'consola';

let instance: Promise<ConsolaInstance> | undefined;

export function logger(): Promise<ConsolaInstance> {
  instance ??= import('consola').then(({ createConsola }) =>
    createConsola({ stdout: process.stderr, stderr: process.stderr }),
  );
  return instance;
}
