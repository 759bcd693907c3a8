/**
 * A table command's words after its name -> the tool's input object (snake_case keys, numbers as
 * numbers, lists), and its CLI-only flags. citty parses (args.ts declares what it parses); two
 * scanners of argv remain beside it, each for what citty 0.2.2 does not do (said at each).
 */
import { parseArgs, type ArgsDef } from 'citty';
import type { GenericSchema } from 'valibot';
import type { Command } from '../table/command.ts';
import { ZipfsError } from '../base/errors.ts';
import { commandArgs, flagOf, positionalKey } from './args.ts';
import { fieldInfo } from './schema-introspection.ts';
import { stripAnsi } from './style.ts';

export interface CommandLine {
  /** The input, before stdin and validation. */
  input: Record<string, unknown>;
  /** The command's CLI-only boolean flags (cli.flags), each given or not. */
  flags: Record<string, boolean>;
}

/**
 * citty parses without strict mode: it takes any flag silently. A typo must instead be an error
 * that says what is allowed, so the words are checked against the declared flags first.
 */
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
        `Unknown option ${arg.split('=')[0]} for zipfs ${command.name}. Options: ${options}. See ` +
          `zipfs ${command.name} --help.`,
      );
    }
  }
}

/**
 * Every value given to `--name` (`--name v` and `--name=v`), in order. citty keeps only the last
 * of a repeated flag, and a list flag is given once per item (`--only '*.xml' --only 'docs/**'`).
 */
function flagValues(argv: string[], name: string): string[] {
  const values: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--') break;
    if (argv[i] === `--${name}` && i + 1 < argv.length) values.push(argv[++i]!);
    else if (argv[i]!.startsWith(`--${name}=`)) values.push(argv[i]!.slice(name.length + 3));
  }
  return values;
}

/** Parses `argv` (the words after the command's name) into the command's input and CLI-only flags. */
export function parseCommandLine(command: Command, argv: string[]): CommandLine {
  const args = commandArgs(command);
  assertKnownFlags(command, args, argv);
  let parsed: Record<string, unknown>;
  try {
    parsed = parseArgs(argv, args) as Record<string, unknown>;
  } catch (error) {
    // citty colours its messages
    throw new ZipfsError('INVALID_INPUT', `${stripAnsi((error as Error).message)}. See zipfs ${command.name} --help.`);
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
    let value = parsed[flagOf(command, key)] ?? (positionals.includes(key) ? parsed[positionalKey(key)] : undefined);
    if (isList(key)) {
      const items = [
        ...flagValues(argv, flagOf(command, key)),
        ...(variadic && key === positionals.at(-1) ? rest : []),
      ];
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
  const flags: Record<string, boolean> = Object.fromEntries(
    Object.keys(command.cli.flags ?? {}).map((flag) => [flag, argv.includes(`--${flag}`)]),
  );
  if (command.cli.fromCli) {
    const options = Object.fromEntries(
      Object.keys(command.cli.options ?? {}).map((option) => [option, parsed[option] as string | undefined]),
    );
    command.cli.fromCli(input, { ...flags, ...options });
  }
  return { input, flags };
}

/**
 * Content from stdin (`zipfs write notes.txt < notes.txt`): the bytes are taken
 * as they are, so binary files pass through unchanged, unless the caller said
 * the piped text is base64.
 */
export async function fillFromStdin(
  command: Command,
  input: Record<string, unknown>,
  readStdin: () => Promise<Uint8Array | undefined>,
): Promise<void> {
  const key = command.cli.stdin;
  if (!key || input[key] !== undefined) return;
  const bytes = await readStdin();
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
