/**
 * `zipfs COMMAND ...` for a command of the table: its words -> input (command-input.ts), the
 * table's runner (which resolves and locks the session), and the result printed as a person or a
 * script reads it (render or --json), with its exit code.
 */
import type { Command, CommandContext } from '../table/command.ts';
import { validateInput } from '../table/validate.ts';
import { runCommand } from '../table/run-command.ts';
import { readSetting } from '../base/env-setting.ts';
import { cliOwner } from '../session/owner.ts';
import type { SessionHints } from '../session/resolve-session.ts';
import { quoteName, quoted } from '../format/quote-name.ts';
import type { Paint } from '../format/paint.ts';
import { fillFromStdin, parseCommandLine } from './command-input.ts';
import type { GlobalFlags } from './global-flags.ts';
import { PROGRESS_DELAY_SETTING, progressLine } from './progress-line.ts';
import { cliResult } from './render-message.ts';
import { markSessionForStdin } from './stdin-session.ts';
import { terminalView } from './terminal-view.ts';
import type { Output } from './terminal.ts';
import { rebaseOnCurrentFolder } from './workspace-cwd.ts';
import { phase } from '../base/phase-trace.ts';

/** What one run of a table command works with: the process's streams and places, and the global flags. */
export interface TableRun {
  home: string;
  env: NodeJS.ProcessEnv;
  cwd: string;
  readStdin(): Promise<Uint8Array | undefined>;
  stdout: Output;
  stderr: Output;
  /** Paint for stdout and for stderr (style.ts). */
  out: Paint;
  err: Paint;
  globals: GlobalFlags;
}

/**
 * Runs `command` on its words (those after its name) and prints its result; returns the exit code. Errors are thrown.
 */
export async function runTableCommand(command: Command, argv: string[], run: TableRun): Promise<number> {
  const { json, quiet } = run.globals;
  const { input: raw, flags } = parseCommandLine(command, argv);
  phase('cli: parse');
  const fromEnv = run.env.ZIPFS_SESSION || undefined;
  rebaseOnCurrentFolder(command, raw, run.home, run.cwd, fromEnv);
  // The CLI's ways to pick a session when none is named; the runner resolves with them.
  const hints: SessionHints = { env: fromEnv, cwd: run.cwd };
  // Busy for prune from before stdin is read until the command has run (stdin-session.ts).
  const unmark = markSessionForStdin(command, raw, run.home, hints);
  try {
    await fillFromStdin(command, raw, run.readStdin);
    const input = validateInput(command, raw);
    const context: CommandContext = { home: run.home, env: run.env, hints, owner: cliOwner(run.env) };
    const delay = readSetting(run.env, PROGRESS_DELAY_SETTING);
    // -q as grep takes it (quietIsSilent): nothing on stdout or stderr but errors; the exit status answers.
    const silent = quiet && command.cli.quietIsSilent !== undefined;
    const line = run.stderr.isTTY && !json && !silent ? progressLine(run.stderr, command.name, delay) : undefined;
    if (line) context.progress = line.progress;
    let output: Record<string, unknown>;
    try {
      phase('cli: input');
      output = cliResult(await runCommand(command, input, context));
      phase('cli: run');
    } finally {
      line?.finish();
    }
    if (json) run.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    else printResult(command, { output, input, flags, silent }, run);
    phase('cli: print');
    return command.cli.exitCode?.(output, flags) ?? 0;
  } finally {
    unmark();
  }
}

interface Result {
  output: Record<string, unknown>;
  input: Record<string, unknown>;
  flags: Record<string, boolean>;
  silent: boolean;
}

/** The result for a person: render()'s text (or the bytes of a binary file) on stdout, a note on stderr. */
function printResult(command: Command, { output, input, flags, silent }: Result, run: TableRun): void {
  const { quiet } = run.globals;
  // Names as a terminal may show them: in a listing as they are unless they must be quoted, as git
  // does; in a note's sentence always in quotes, as in messages. Content (read, grep's lines) stays raw.
  const shown = terminalView(output, command.output, quoteName);
  const bytes = command.cli.bytes?.(output, input);
  const text =
    bytes || silent || (quiet && command.cli.message)
      ? ''
      : command.render(shown as never, run.out, { ...flags, quiet }, input as never);
  if (bytes) run.stdout.writeBytes(bytes);
  else if (text !== '') run.stdout.write(command.cli.rawOutput || text.endsWith('\n') ? text : `${text}\n`);
  const note = silent
    ? undefined
    : command.note?.(terminalView(output, command.output, quoted) as never, quiet, input as never);
  // A note starts on a line of its own, even after raw output that did not end one on the same terminal.
  const unterminated =
    run.stdout.isTTY &&
    run.stderr.isTTY &&
    (bytes ? bytes.at(-1) !== 0x0a : text !== '' && !text.endsWith('\n') && command.cli.rawOutput);
  if (note) run.stderr.write(`${unterminated ? '\n' : ''}${run.err.dim(note)}\n`);
}
