/**
 * The CLI adapter: argv -> one command from the table -> printed result and
 * exit code. Built on citty's parser and usage renderer; the only file besides
 * cli/args.ts that knows citty.
 */
import { parseArgs, renderUsage, type ArgsDef, type CommandDef } from 'citty';
import type { GenericSchema } from 'valibot';
import type { Command, CommandContext } from '../table/command.ts';
import { ERROR_CODES, ZipfsError, quote, toZipfsError } from '../base/errors.ts';
import { logger } from '../base/log.ts';
import { COMMANDS, findCommand } from '../table/registry.ts';
import { validateInput } from '../table/validate.ts';
import { runCommand } from '../table/run-command.ts';
import { dataDir } from '../session/data-dir.ts';
import { cliOwner, ownerOf } from '../session/owner.ts';
import { JSON_FLAG, QUIET_FLAG, commandArgs, kebab, positionalKey } from './args.ts';
import { completionScript } from './completion.ts';
import { MODE_HELP, MODE_NAMES, isMode, modeUsage, type ModeName } from './mode-help.ts';
import { PROGRESS_DELAY_SETTING, progressLine } from './progress-line.ts';
import { readSetting } from '../base/env-setting.ts';
import { parseExec, runExec } from './exec.ts';
import { NATIVE_SETTING } from '../base/libc.ts';
import { fieldInfo } from './schema-introspection.ts';
import { renderOutputFields } from './output-fields.ts';
import { stripAnsi, styleFor } from './style.ts';
import { cliMessage, cliResult } from './render-message.ts';
import { didYouMean } from './did-you-mean.ts';
import { rebaseOnCurrentFolder } from './workspace-cwd.ts';
import { markSessionForStdin } from './stdin-session.ts';
import { terminalView } from './terminal-view.ts';
import { escapeUnsafe, quoteName, quoted } from '../format/quote-name.ts';
import type { Output } from './terminal.ts';

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

/** Not operations but modes of the program: serve the table over MCP, run a CI job, describe it to a shell (mode-help.ts). */
const MODES: Record<string, CommandDef> = Object.fromEntries(
  MODE_NAMES.map((name) => [name, { meta: MODE_HELP[name].def.meta }]),
);

function citty(command: Command): CommandDef {
  return { meta: { name: command.name, description: command.description }, args: commandArgs(command) };
}

/** The first sentence: the top-level list gives each command one line. */
function summary(description: string): string {
  const end = description.search(/[.;:](\s|$)/);
  return end < 0 ? description : description.slice(0, end);
}

function mainCommand(version: string): CommandDef {
  const subCommands: Record<string, CommandDef> = {};
  for (const command of COMMANDS) {
    const also = command.cli.aliases?.length ? ` (also: zipfs ${command.cli.aliases.join(', ')})` : '';
    subCommands[command.name] = {
      ...citty(command),
      meta: { name: command.name, description: `${summary(command.description)}${also}` },
    };
  }
  Object.assign(subCommands, MODES);
  return {
    meta: { name: 'zipfs', version, description: 'Open a zip as a folder, change it, and sync it back' },
    args: { ...JSON_FLAG, ...QUIET_FLAG, version: { type: 'boolean', alias: 'v', description: 'Show the version' } },
    subCommands,
  };
}

/** Help text for the program, one command (generated from the table), or one mode (mode-help.ts). */
export async function renderHelp(version: string, command?: Command | ModeName): Promise<string> {
  const main = mainCommand(version);
  let usage: string;
  if (typeof command === 'string')
    usage = modeUsage(MODE_HELP[command], await renderUsage(MODE_HELP[command].def, main));
  else
    usage = command
      ? `${await renderUsage(citty(command), main)}\n\nEXAMPLE\n\n  ${command.cli.example}\n\n${renderOutputFields(command)}`
      : await renderUsage(main);
  return usage.replace(/[ \t]+$/gm, '');
}

/** Splits global flags (--json, --help, --version, --quiet) from the rest. */
function takeGlobals(argv: string[]) {
  const rest: string[] = [];
  let json = false;
  let help = false;
  let version = false;
  let quiet = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '--json') json = true;
    else if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--version' || arg === '-v') version = true;
    else if (arg === '--quiet' || arg === '-q') quiet = true;
    else rest.push(arg);
  }
  return { rest, json, help, version, quiet };
}

/** citty accepts any flag silently; a typo must instead be an error that says what is allowed. */
function assertKnownFlags(command: Command, args: ArgsDef, argv: string[]): void {
  const known = new Set<string>();
  for (const [name, def] of Object.entries(args)) {
    if (def.type === 'positional') continue;
    known.add(name);
    if (def.type === 'boolean') known.add(`no-${name}`);
    for (const alias of ['alias' in def ? (def.alias ?? []) : []].flat()) known.add(alias);
  }
  for (const arg of argv) {
    if (arg === '--') break;
    if (!arg.startsWith('-') || arg === '-' || /^-\d/.test(arg)) continue;
    const name = arg.replace(/^--?/, '').split('=')[0]!;
    if (!known.has(name)) {
      const options = Object.entries(args)
        .filter(([, d]) => d.type !== 'positional')
        .map(([n]) => `--${n}`)
        .join(', ');
      throw new ZipfsError(
        'INVALID_INPUT',
        `Unknown option ${arg.split('=')[0]} for zipfs ${command.name}. Options: ${options}. See zipfs ${command.name} --help.`,
      );
    }
  }
}

/** Turns parsed CLI arguments into the tool's input object (snake_case keys, numbers as numbers), and returns the parse too. */
function toInput(
  command: Command,
  args: ArgsDef,
  argv: string[],
): { input: Record<string, unknown>; parsed: Record<string, unknown> } {
  let parsed: Record<string, unknown>;
  try {
    parsed = parseArgs(argv, args) as Record<string, unknown>;
  } catch (error) {
    throw new ZipfsError('INVALID_INPUT', `${stripAnsi((error as Error).message)}. See zipfs ${command.name} --help.`); // citty colours its messages
  }
  const positionals = command.cli.positionals ?? [];
  const isList = (key: string) => fieldInfo(command.input.entries[key] as GenericSchema).type === 'array';
  // A list as the last positional takes every argument left (`zipfs extract a.txt 'docs/**'`).
  const variadic = positionals.length > 0 && isList(positionals.at(-1)!);
  const rest = (parsed._ as string[]).slice(positionals.length - (variadic ? 1 : 0));
  if (!variadic && rest.length > 0)
    throw new ZipfsError(
      'INVALID_INPUT',
      `Unexpected argument "${rest[0]}" for zipfs ${command.name}. See zipfs ${command.name} --help.`,
    );

  const input: Record<string, unknown> = {};
  for (const [key, schema] of Object.entries(command.input.entries)) {
    let value = parsed[kebab(key)] ?? (positionals.includes(key) ? parsed[positionalKey(key)] : undefined);
    if (isList(key)) {
      // A list flag is given once per item (`--only '*.xml' --only 'docs/**'`); citty keeps only one, so argv is read again.
      const items = [...flagValues(argv, kebab(key)), ...(variadic && key === positionals.at(-1) ? rest : [])];
      if (items.length > 0) input[key] = items;
      continue;
    }
    if (value === undefined) continue;
    if (
      fieldInfo(schema as GenericSchema).type === 'number' &&
      typeof value === 'string' &&
      /^-?\d+(\.\d+)?$/.test(value.trim())
    )
      value = Number(value);
    input[key] = value;
  }
  return { input, parsed };
}

/** Every value given to `--name` (`--name v` and `--name=v`), in order. */
function flagValues(argv: string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') break;
    if (argv[i] === `--${name}` && i + 1 < argv.length) values.push(argv[++i]!);
    else if (argv[i]!.startsWith(`--${name}=`)) values.push(argv[i]!.slice(name.length + 3));
  }
  return values;
}

/**
 * Content from stdin (`zipfs write notes.txt < notes.txt`): the bytes are taken
 * as they are, so binary files pass through unchanged, unless the caller said
 * the piped text is base64.
 */
async function fillFromStdin(command: Command, input: Record<string, unknown>, io: CliIo): Promise<void> {
  const key = command.cli.stdin;
  if (!key || input[key] !== undefined) return;
  const bytes = await io.readStdin();
  if (bytes === undefined)
    throw new ZipfsError(
      'INVALID_INPUT',
      `Give ${key} as an argument or pipe it on stdin (zipfs ${command.name} --help).`,
    );
  if (input.encoding === 'base64') {
    input[key] = Buffer.from(bytes).toString('utf8');
    return;
  }
  input[key] = Buffer.from(bytes).toString('base64');
  input.encoding = 'base64';
}

/** `zipfs mcp` on stdio, or `zipfs mcp --http [HOST:]PORT [--allow-remote]` over Streamable HTTP. */
async function serveMcpMode(
  argv: string[],
  options: { version: string; home: string; env: NodeJS.ProcessEnv },
): Promise<void> {
  const at = argv.indexOf('--http');
  const unknown = argv.find((arg, i) => arg !== '--http' && arg !== '--allow-remote' && i !== at + 1);
  if (unknown !== undefined || (at >= 0 && argv[at + 1] === undefined)) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `zipfs mcp takes no arguments (stdio), or --http [HOST:]PORT with --allow-remote for an address other than 127.0.0.1${unknown !== undefined ? `; got ${quote(unknown)}` : ''}.`,
    );
  }
  if (at < 0) {
    const { serveMcp } = await import('../mcp/server.ts');
    return serveMcp(options);
  }
  const { parseListen, serveHttp } = await import('../mcp/http-server.ts');
  await serveHttp(options, {
    ...parseListen(argv[at + 1]!),
    allowRemote: argv.includes('--allow-remote'),
    token: options.env.ZIPFS_MCP_TOKEN || undefined,
  });
}

/** Runs the CLI and returns the exit code. */
export async function runCli(io: CliIo): Promise<number> {
  const { rest, json, help, version, quiet } = takeGlobals(io.argv);
  const [out, err] = await Promise.all([styleFor(io.stdout, io.env), styleFor(io.stderr, io.env)]);
  const name = rest.find((a) => !a.startsWith('-'));

  if (version && !name) {
    // --json asks for JSON everywhere, the version too.
    io.stdout.write(json ? `${JSON.stringify({ version: io.version }, null, 2)}\n` : `${io.version}\n`);
    return 0;
  }
  if (!name) {
    // `zipfs --bogus`: say what was wrong before the help, so it does not read as a plain `zipfs`.
    const unknown = rest.find((a) => a.startsWith('-'));
    if (unknown)
      io.stderr.write(
        `${err.red('zipfs:')} unknown option ${escapeUnsafe(unknown.split('=')[0]!)}; options before a command are --help, --version, --json and --quiet. ${err.dim('[INVALID_INPUT]')}\n`,
      );
    io.stdout.write(`${out.plain(await renderHelp(io.version))}\n`);
    return help && !unknown ? 0 : ERROR_CODES.INVALID_INPUT.exit;
  }
  if (name === 'help') {
    // `zipfs help` and `zipfs help sync`, as git and cargo take them; `zipfs help --help` is `zipfs help help`.
    const topic = rest[rest.indexOf(name) + 1] ?? (help ? 'help' : undefined);
    const about = topic === undefined ? undefined : isMode(topic) ? topic : findCommand(topic);
    if (topic !== undefined && !about) return runCli({ ...io, argv: [topic] }); // says the command is unknown, with a suggestion
    io.stdout.write(`${out.plain(await renderHelp(io.version, about))}\n`);
    return 0;
  }
  if (help && isMode(name)) {
    // `zipfs mcp --help` describes mcp instead of serving; exec's and completion's too (a COMMAND's own --help after exec's -- is its own).
    io.stdout.write(`${out.plain(await renderHelp(io.version, name))}\n`);
    return 0;
  }
  const command = findCommand(name);
  let unmark = () => {};
  try {
    // libc() reads ZIPFS_NATIVE when first needed, which some calls never are: read here, every
    // command and the MCP server refuse a malformed value alike, before doing anything.
    if (name === 'mcp' || command) readSetting(io.env, NATIVE_SETTING);
    const home = dataDir(io.env);
    if (name === 'mcp') {
      await serveMcpMode(rest.slice(rest.indexOf(name) + 1), { version: io.version, home, env: io.env });
      return 0;
    }
    if (name === 'exec') {
      const say = (line: string) => io.stderr.write(`${line}\n`);
      // exec lives as long as its job: it owns its session itself.
      return await runExec(
        parseExec(rest.slice(rest.indexOf(name) + 1)),
        { home, env: io.env, hints: {}, owner: ownerOf(process.pid) },
        say,
        quiet,
      );
    }
    if (name === 'completion') {
      io.stdout.write(completionScript(rest[rest.indexOf(name) + 1], COMMANDS));
      return 0;
    }
    if (!command) {
      const words = [...COMMANDS.flatMap((c) => [c.name, ...(c.cli.aliases ?? [])]), ...Object.keys(MODES)];
      const guess = didYouMean(name, words);
      const hint = guess ? ` Did you mean ${guess}?` : '';
      throw new ZipfsError(
        'INVALID_INPUT',
        `Unknown command ${quote(name)}.${hint} Commands: ${[...COMMANDS.map((c) => c.name), ...Object.keys(MODES)].join(', ')}. See zipfs help.`,
      );
    }
    if (help) {
      io.stdout.write(`${out.plain(await renderHelp(io.version, command))}\n`);
      return 0;
    }
    const argv = rest.slice(rest.indexOf(name) + 1);
    const args = commandArgs(command);
    assertKnownFlags(command, args, argv);
    const { input: raw, parsed } = toInput(command, args, argv);
    const flags: Record<string, boolean> = Object.fromEntries(
      Object.keys(command.cli.flags ?? {}).map((flag) => [flag, argv.includes(`--${flag}`)]),
    );
    if (command.cli.fromCli) {
      const options = Object.fromEntries(
        Object.keys(command.cli.options ?? {}).map((option) => [option, parsed[option] as string | undefined]),
      );
      command.cli.fromCli(raw, { ...flags, ...options });
    }
    rebaseOnCurrentFolder(command, raw, home, io.cwd, io.env.ZIPFS_SESSION || undefined);
    const hints = { env: io.env.ZIPFS_SESSION || undefined, cwd: io.cwd };
    // Busy for prune from before stdin is read until the command has run (stdin-session.ts).
    unmark = markSessionForStdin(command, raw, home, hints);
    await fillFromStdin(command, raw, io);
    const input = validateInput(command, raw);
    const context: CommandContext = { home, env: io.env, hints, owner: cliOwner(io.env) };
    const delay = readSetting(io.env, PROGRESS_DELAY_SETTING);
    // -q as grep takes it (quietIsSilent): nothing on stdout or stderr but errors; the exit status answers.
    const silent = quiet && command.cli.quietIsSilent !== undefined;
    const line = io.stderr.isTTY && !json && !silent ? progressLine(io.stderr, command.name, delay) : undefined;
    if (line) context.progress = line.progress;
    let output: Record<string, unknown>;
    try {
      output = cliResult(await runCommand(command, input, context));
    } finally {
      line?.finish();
    }
    if (json) {
      io.stdout.write(`${JSON.stringify(output, null, 2)}\n`);
    } else {
      // Names as a terminal may show them: in a listing as they are unless they must be quoted, as git
      // does; in a note's sentence always in quotes, as in messages. Content (read, grep's lines) stays raw.
      const shown = terminalView(output, command.output, quoteName);
      const bytes = command.cli.bytes?.(output, input);
      const text =
        bytes || silent || (quiet && command.cli.message)
          ? ''
          : command.render(shown as never, out, { ...flags, quiet }, input as never);
      if (bytes) io.stdout.writeBytes(bytes);
      else if (text !== '') io.stdout.write(command.cli.rawOutput || text.endsWith('\n') ? text : `${text}\n`);
      const note = silent
        ? undefined
        : command.note?.(terminalView(output, command.output, quoted) as never, quiet, input as never);
      // A note starts on a line of its own, even after raw output that did not end one on the same terminal.
      const unterminated =
        io.stdout.isTTY &&
        io.stderr.isTTY &&
        (bytes ? bytes.at(-1) !== 0x0a : text !== '' && !text.endsWith('\n') && command.cli.rawOutput);
      if (note) io.stderr.write(`${unterminated ? '\n' : ''}${err.dim(note)}\n`);
    }
    return command.cli.exitCode?.(output, flags) ?? 0;
  } catch (error) {
    const failure = toZipfsError(error);
    if (failure.code === 'INTERNAL_ERROR') (await logger()).error(error);
    failure.message = cliMessage(failure.message);
    if (json) io.stdout.write(`${JSON.stringify(failure.toJSON(), null, 2)}\n`);
    // Names in messages are quoted where they are built; this catches any other text (a system error's path).
    else io.stderr.write(`${err.red('zipfs:')} ${escapeUnsafe(failure.message)} ${err.dim(`[${failure.code}]`)}\n`);
    return failure.exitCode;
  } finally {
    unmark();
  }
}
