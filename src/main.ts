#!/usr/bin/env bun
/** Entry point: `zipfs <command> ...` runs one operation, `zipfs mcp` serves them all over stdio. */
import pkg from '../package.json' with { type: 'json' };
import fs from 'node:fs';
import { runCli } from './cli/run.ts';
import { fdOutput, isTerminal } from './cli/terminal.ts';
import { releaseAllLocks } from './session/lock.ts';
import { removeAllOnExit } from './exit-cleanup.ts';

// An interrupted open or sync must not leave a half-extracted folder or a half-written archive behind, nor a lock.
for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) {
  process.on(signal, () => {
    removeAllOnExit();
    releaseAllLocks();
    process.exit(code);
  });
}

process.exitCode = await runCli({
  argv: process.argv.slice(2),
  readStdin: async () => (isTerminal(0) ? undefined : new Uint8Array(fs.readFileSync(0))),
  env: process.env,
  cwd: process.cwd(),
  stdout: fdOutput(1),
  stderr: fdOutput(2),
  version: pkg.version,
});
