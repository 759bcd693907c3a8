/**
 * The README's command table, from the dispatch table (src/table/registry.ts) and
 * the CLI's modes (src/cli/mode-help.ts): each command's usage, what it does, its
 * options and its example, as `zipfs help CMD` gives them in full.
 */
import type { ArgsDef, CommandMeta } from 'citty';
import { commandArgs } from '../../src/cli/args.ts';
import { MODE_HELP, MODE_NAMES } from '../../src/cli/mode-help.ts';
import { COMMANDS } from '../../src/table/registry.ts';
import { cell, code, table } from './markdown.ts';

/** Flags every command takes, said once above the table rather than on each row. */
const COMMON = new Set(['json', 'quiet', 'session']);

/** `zipfs NAME <REQUIRED> [OPTIONAL]`; a positional that comes after `--` is written after it. */
function usage(name: string, args: ArgsDef): string {
  const words = [`zipfs ${name}`];
  for (const [key, arg] of Object.entries(args)) {
    if (arg.type !== 'positional') continue;
    const word = arg.required === false ? `[${key}]` : `<${key}>`;
    words.push(arg.description?.startsWith('After --') ? `-- ${word}` : word);
  }
  return words.join(' ');
}

/** The options a command takes besides the common ones, as flags: `-r/--recursive`, `--no-backup` for a default-true boolean. */
function options(args: ArgsDef): string {
  const flags: string[] = [];
  for (const [key, arg] of Object.entries(args)) {
    if (arg.type === 'positional' || COMMON.has(key)) continue;
    const name = arg.type === 'boolean' && arg.default === true ? `--no-${key}` : `--${key}`;
    const alias = 'alias' in arg && typeof arg.alias === 'string' ? `-${arg.alias}, ` : '';
    flags.push(code(`${alias}${name}`));
  }
  return flags.join(' ');
}

export function commandTable(): string {
  const rows = COMMANDS.map((command) => {
    const args = commandArgs(command);
    const aliases = command.cli.aliases ?? [];
    const also = aliases.length ? ` (also ${aliases.map((a) => code(`zipfs ${a}`)).join(', ')})` : '';
    return [
      `${code(usage(command.name, args))}${also}`,
      cell(command.description),
      options(args),
      cell(code(command.cli.example)),
    ];
  });
  for (const name of MODE_NAMES) {
    const help = MODE_HELP[name];
    const args = help.def.args as ArgsDef;
    const description = (help.def.meta as CommandMeta).description ?? '';
    rows.push([code(usage(name, args)), cell(description), options(args), cell(code(help.example))]);
  }
  return table(['command', 'what it does', 'options', 'example'], rows);
}
