/**
 * The README's JSON reference: every command's result fields with their types,
 * from the output schemas (src/cli/output-fields.ts). What each field holds is in
 * `zipfs help CMD`, from the same source; the README gives the shape, to stay short.
 */
import { outputFields } from '../../src/cli/output-fields.ts';
import { COMMANDS } from '../../src/table/registry.ts';
import { cell, code, table } from './markdown.ts';

/** `list of strings` as `string[]`: the README's table gives the shape, compactly. */
const short = (type: string) => type.replace(/^list of (\w+?)s?$/, '$1[]');

export function jsonReference(): string {
  const rows = COMMANDS.map((command) => {
    const fields = outputFields(command).map((f) => `${code(`${f.path}${f.sometimes ? '?' : ''}`)} ${short(f.type)}`);
    return [command.name, cell(fields.join(', '))];
  });
  return table(['command', 'result fields (`?`: only in some results)'], rows);
}
