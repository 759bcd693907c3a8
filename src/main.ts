#!/usr/bin/env bun
/** Entry point: `zipfs <command> ...` runs one operation, `zipfs mcp` serves them all over stdio. */
import pkg from '../package.json' with { type: 'json' };
import fs from 'node:fs';
import { runCli } from './cli/run.ts';
import { fdOutput, isTerminal } from './cli/terminal.ts';

// SIGINT and SIGTERM: exit-cleanup.ts, which removes what an interrupted open or sync leaves, and the locks.

process.exitCode = await runCli({
  argv: process.argv.slice(2),
  readStdin: async () => (isTerminal(0) ? undefined : new Uint8Array(fs.readFileSync(0))),
  env: process.env,
  cwd: process.cwd(),
  stdout: fdOutput(1),
  stderr: fdOutput(2),
  version: pkg.version,
});
