/** Diagnostics go to stderr, always: in MCP mode stdout belongs to the protocol. */
import { createConsola } from 'consola';

export const log = createConsola({ stdout: process.stderr, stderr: process.stderr });
