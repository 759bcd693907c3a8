/**
 * The CLI adapter: argv -> one mode of the program -> printed result and exit code. The modes are
 * the version, help (the program's, a command's, a mode's), completion, exec, mcp, and a command
 * of the table (table-command.ts), each a small handler here; the global flags are taken first
 * (global-flags.ts), and an error of any mode is printed one way (failed()).
 */
import path from 'node:path';
import { ERROR_CODES, toZipfsError } from '../base/errors.ts';
import { logger } from '../base/log.ts';
import { readSetting } from '../base/env-setting.ts';
import { NATIVE_SETTING } from '../base/libc.ts';
import { commandNamed } from '../table/command-loader.ts';
import { dataDir } from '../session/data-dir.ts';
import { ownerOf } from '../session/owner.ts';
import { escapeUnsafe } from '../format/quote-name.ts';
import { takeGlobals, type GlobalFlags } from './global-flags.ts';
import { isMode } from './mode-help.ts';
import { installPasswordPrompt } from './password-prompt.ts';
import { cliMessage } from './render-message.ts';
import { styleFor, type Style } from './style.ts';
import { runTableCommand } from './table-command.ts';
import type { Output } from './terminal.ts';
import { phase } from '../base/phase-trace.ts';

/**
 * Help names every command: it loads the whole table (registry.ts), which a command's run does not (command-loader.ts).
 */
export async function renderHelp(...args: Parameters<typeof import('./help.ts').renderHelp>): Promise<string> {
  return (await import('./help.ts')).renderHelp(...args);
}

export interface CliIo {
  argv: string[];
  /** All of standard input, for commands that take content from it; undefined when it is a terminal. */
  readStdin(): Promise<Uint8Array | undefined>;
  env: NodeJS.ProcessEnv;
  cwd: string;
  stdout: Output;
  stderr: Output;
  version: string;
}

/** One run: the process's streams, the global flags, the command word and the words after it. */
interface Invocation {
  io: CliIo;
  globals: GlobalFlags;
  out: Style;
  err: Style;
  /** The first word that is not a flag: a command, a mode, or neither (an error). */
  name: string | undefined;
  /** The words after `name`, without the global flags. */
  argv: string[];
}

/** Runs the CLI and returns the exit code. */
export async function runCli(io: CliIo): Promise<number> {
  const globals = takeGlobals(io.argv);
  // Its path, never the password, is what the process's threads read (zip/ciphers/password.ts).
  if (globals.passwordFile !== undefined) {
    const file = path.resolve(globals.passwordFile);
    process.env.ZIPFS_PASSWORD_FILE = file;
    io.env.ZIPFS_PASSWORD_FILE = file;
  }
  const [out, err] = await Promise.all([styleFor(io.stdout, io.env), styleFor(io.stderr, io.env)]);
  const name = globals.rest.find((a) => !a.startsWith('-'));
  const argv = name === undefined ? [] : globals.rest.slice(globals.rest.indexOf(name) + 1);
  const run: Invocation = { io, globals, out, err, name, argv };
  if (name === undefined) return globals.version ? showVersion(run) : showProgramHelp(run);
  if (name === 'help') return helpMode(run);
  if (globals.help && isMode(name)) return printHelp(run, name); // `zipfs mcp --help` describes mcp instead of serving
  try {
    return await runMode(run, name);
  } catch (error) {
    return failed(run, error);
  }
}

/** `zipfs --version`: --json asks for JSON everywhere, the version too. */
function showVersion({ io, globals }: Invocation): number {
  io.stdout.write(globals.json ? `${JSON.stringify({ version: io.version }, null, 2)}\n` : `${io.version}\n`);
  return 0;
}

/**
 * `zipfs`, `zipfs --help`, `zipfs --bogus`: the list of commands, after what was wrong, so it does not read as a plain
 * `zipfs`.
 */
async function showProgramHelp(run: Invocation): Promise<number> {
  const unknown = run.globals.rest.find((a) => a.startsWith('-'));
  if (unknown)
    run.io.stderr.write(
      `${run.err.red('zipfs:')} unknown option ${escapeUnsafe(unknown.split('=')[0]!)}; options before a command ` +
        `are --help, --version, --json, --quiet and --password-file FILE. ${run.err.dim('[INVALID_INPUT]')}\n`,
    );
  await printHelp(run);
  return run.globals.help && !unknown ? 0 : ERROR_CODES.INVALID_INPUT.exit;
}

/** `zipfs help` and `zipfs help sync`, as git and cargo take them; `zipfs help --help` is `zipfs help help`. */
async function helpMode(run: Invocation): Promise<number> {
  const topic = run.argv[0] ?? (run.globals.help ? 'help' : undefined);
  if (topic === undefined) return printHelp(run);
  const about = isMode(topic) ? topic : commandNamed(topic);
  if (!about) return runCli({ ...run.io, argv: [topic] }); // says the command is unknown, with a suggestion
  return printHelp(run, about);
}

async function printHelp(run: Invocation, about?: Parameters<typeof renderHelp>[1]): Promise<number> {
  run.io.stdout.write(`${run.out.plain(await renderHelp(run.io.version, about))}\n`);
  return 0;
}

/** mcp, exec, completion, or a command of the table. */
async function runMode(run: Invocation, name: string): Promise<number> {
  const { io, globals, argv } = run;
  phase('cli: start');
  const command = commandNamed(name);
  phase('cli: load command');
  // libc() reads ZIPFS_NATIVE when first needed, which some calls never are: read here, every
  // command and the MCP server refuse a malformed value alike, before doing anything.
  if (name === 'mcp' || command) readSetting(io.env, NATIVE_SETTING);
  const home = dataDir(io.env);
  if (name === 'mcp') {
    await (await import('./mcp-mode.ts')).serveMcpMode(argv, { version: io.version, home, env: io.env });
    return 0;
  }
  // A command that must decrypt an entry, given no password, asks for it on a terminal (never an MCP server).
  installPasswordPrompt();
  if (name === 'exec') {
    const say = (line: string) => io.stderr.write(`${line}\n`);
    // exec lives as long as its job: it owns its session itself.
    const context = { home, env: io.env, hints: {}, owner: ownerOf(process.pid) };
    const { parseExec, runExec } = await import('./exec.ts');
    return await runExec(parseExec(argv), context, say, globals.quiet);
  }
  if (name === 'completion') {
    const { completionScript } = await import('./completion.ts');
    io.stdout.write(completionScript(argv[0], (await import('../table/registry.ts')).COMMANDS));
    return 0;
  }
  if (!command) throw (await import('./help.ts')).unknownCommand(name);
  if (globals.help) return printHelp(run, command);
  return runTableCommand(command, argv, { ...io, home, out: run.out, err: run.err, globals });
}

/** Any mode's error, the same way: JSON on stdout with --json, else one line on stderr; its code's exit status. */
async function failed({ io, globals, err }: Invocation, error: unknown): Promise<number> {
  const failure = toZipfsError(error);
  if (failure.code === 'INTERNAL_ERROR') (await logger()).error(error);
  failure.message = cliMessage(failure.message);
  if (globals.json) io.stdout.write(`${JSON.stringify(failure.toJSON(), null, 2)}\n`);
  // Names in messages are quoted where they are built; this catches any other text (a system error's path).
  else io.stderr.write(`${err.red('zipfs:')} ${escapeUnsafe(failure.message)} ${err.dim(`[${failure.code}]`)}\n`);
  return failure.exitCode;
}
