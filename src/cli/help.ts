/**
 * The CLI's help: the program's, a command's (generated from the table by citty's usage renderer)
 * and a mode's (mode-help.ts), and what an unknown command word is answered with.
 */
import { renderUsage, type CommandDef } from 'citty';
import type { Command } from '../table/command.ts';
import { ZipfsError, quote } from '../base/errors.ts';
import { COMMANDS } from '../table/registry.ts';
import { JSON_FLAG, QUIET_FLAG, commandArgs } from './args.ts';
import { MODE_HELP, MODE_NAMES, modeUsage, type ModeName } from './mode-help.ts';
import { renderOutputFields } from './output-fields.ts';
import { didYouMean } from './did-you-mean.ts';

/** Not operations but modes of the program: serve the table over MCP, run a CI job, describe it to a shell (mode-help.ts). */
const MODES: Record<string, CommandDef> = Object.fromEntries(
  MODE_NAMES.map((name) => [name, { meta: MODE_HELP[name].def.meta }]),
);

export function cittyCommand(command: Command): CommandDef {
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
      ...cittyCommand(command),
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
      ? `${await renderUsage(cittyCommand(command), main)}\n\nEXAMPLE\n\n  ${command.cli.example}\n\n${renderOutputFields(command)}`
      : await renderUsage(main);
  return usage.replace(/[ \t]+$/gm, '');
}

/** What a word that names no command nor mode is answered with: the nearest word, and the list. */
export function unknownCommand(name: string): ZipfsError {
  const words = [...COMMANDS.flatMap((c) => [c.name, ...(c.cli.aliases ?? [])]), ...Object.keys(MODES)];
  const guess = didYouMean(name, words);
  const hint = guess ? ` Did you mean ${guess}?` : '';
  return new ZipfsError(
    'INVALID_INPUT',
    `Unknown command ${quote(name)}.${hint} Commands: ${[...COMMANDS.map((c) => c.name), ...Object.keys(MODES)].join(', ')}. See zipfs help.`,
  );
}
