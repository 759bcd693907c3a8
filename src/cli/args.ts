/**
 * citty argument definitions generated from a command's input schema:
 * snake_case parameters become kebab-case flags, CLI hints add positionals and
 * one-letter aliases, and every subcommand gets the global --json flag.
 */
import type { ArgsDef } from 'citty';
import type { GenericSchema } from 'valibot';
import type { Command } from '../table/command.ts';
import { fieldInfo } from './schema-introspection.ts';

export const kebab = (key: string) => key.replaceAll('_', '-');

/** The CLI flag of input `key`: its kebab-case name, or the one the command gives it (cli.flagNames). */
export const flagOf = (command: Command, key: string) => command.cli.flagNames?.[key] ?? kebab(key);

/** The citty key of a positional: upper case, so a parameter can be both a
 * positional and a flag (`zipfs close q4` and `zipfs close --session q4`). */
export const positionalKey = (key: string) => key.toUpperCase();

export const JSON_FLAG = {
  json: { type: 'boolean', description: 'Print the result (or error) as JSON, the same object MCP returns' },
} as const;

/** Taken before the command's own flags (cli/run.ts), like --json; listed so help and completion show it. */
export const QUIET_FLAG = {
  quiet: {
    type: 'boolean',
    alias: 'q',
    description: 'No success messages or notes (results, warnings and errors still print)',
  },
} as const;

export function commandArgs(command: Command): ArgsDef {
  const args: ArgsDef = {};
  const positionals = command.cli.positionals ?? [];
  for (const key of positionals) {
    const info = fieldInfo(command.input.entries[key] as GenericSchema);
    const optional = info.optional || key === 'session' || key === command.cli.stdin;
    args[positionalKey(key)] = { type: 'positional', description: info.description, required: !optional };
  }
  for (const [key, schema] of Object.entries(command.input.entries)) {
    // A positional is not also a flag (`open <path>`, not `open --path`), except the
    // session, which every session operation takes as --session/-s.
    if (positionals.includes(key) && key !== 'session') continue;
    if (command.cli.viaOptions?.includes(key)) continue; // spelled through CLI-only options
    const info = fieldInfo(schema as GenericSchema);
    const alias = command.cli.short?.[key];
    const shared = { description: info.description, ...(alias ? { alias } : {}) };
    const flag = flagOf(command, key);
    if (info.type === 'boolean')
      args[flag] = { type: 'boolean', ...shared, ...(info.default === true ? { default: true } : {}) };
    else if (info.type === 'picklist')
      args[flag] = {
        type: 'enum',
        options: info.options,
        ...shared,
        ...(info.default !== undefined ? { default: String(info.default) } : {}),
      };
    else
      args[flag] = {
        type: 'string',
        ...shared,
        ...(info.default !== undefined ? { default: String(info.default) } : {}),
        ...(info.type === 'number' ? { valueHint: 'n' } : {}),
      };
  }
  for (const [flag, description] of Object.entries(command.cli.flags ?? {}))
    args[flag] = { type: 'boolean', description };
  for (const [option, description] of Object.entries(command.cli.options ?? {}))
    args[option] = { type: 'string', description };
  const quiet = command.cli.quietIsSilent
    ? { quiet: { ...QUIET_FLAG.quiet, description: command.cli.quietIsSilent } }
    : QUIET_FLAG;
  return { ...args, ...JSON_FLAG, ...quiet };
}
