/** Messages in the CLI's words: `--force`, `--stale 7d`, `zipfs close q4 --force`. */
import { renderMarks, renderMarksDeep, type MarkRenderer, type ParamValue } from '../base/message-marks.ts';
import { commandNamed } from '../table/command-loader.ts';
import { flagOf, kebab } from './args.ts';
import { quoteName } from '../format/quote-name.ts';

/** A value in a suggested command line: a session or path name can hold anything, so it is quoted as names are. */
const word = (value: ParamValue) => quoteName(String(value));

function flag(name: string, value: ParamValue): string {
  if (Array.isArray(value)) return value.map((item) => flag(name, item)).join(' ');
  if (value === true) return `--${kebab(name)}`;
  if (value === false) return `--no-${kebab(name)}`;
  return `--${kebab(name)} ${word(value)}`;
}

const CLI_WORDS: MarkRenderer = {
  param: flag,
  invocation(operation, args) {
    const command = commandNamed(operation);
    const positionals = command?.cli.positionals ?? [];
    const words = ['zipfs', operation];
    for (const key of positionals) if (args[key] !== undefined) words.push(...[args[key]].flat().map(word));
    for (const [key, value] of Object.entries(args))
      if (!positionals.includes(key)) words.push(flag(command ? flagOf(command, key) : key, value));
    return words.join(' ');
  },
};

export const cliMessage = (message: string) => renderMarks(message, CLI_WORDS);
export const cliResult = <T>(result: T) => renderMarksDeep(result, CLI_WORDS);
