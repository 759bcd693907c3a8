import { describe, expect, it } from 'bun:test';
import * as v from 'valibot';
import { terminalView } from '../../src/cli/terminal-view.ts';
import { NAME, count, name, names, text } from '../../src/commands/schemas.ts';
import { quoteName } from '../../src/format/quote-name.ts';
import { COMMANDS } from '../../src/table/registry.ts';

const schema = v.object({
  entries: v.pipe(
    v.array(v.object({ name: name('Name'), note: text('Not a name'), size: count('Bytes') })),
    v.description('All'),
  ),
  added: names('New'),
  backup: v.pipe(v.nullable(NAME), v.description('Maybe')),
  extra: v.optional(name('Maybe')),
  content: text('File content'),
});

describe('the terminal view of a result', () => {
  it('quotes the fields the schema marks as names, at any depth, and nothing else', () => {
    const result = {
      entries: [{ name: 'a\x1bb', note: 'c\x1bd', size: 3 }],
      added: ['x\ny', 'plain'],
      backup: 'z\tz',
      extra: 'e\x7f',
      content: 'raw\x1b[31m',
    };
    expect(terminalView(result, schema, quoteName)).toStrictEqual({
      entries: [{ name: '"a\\033b"', note: 'c\x1bd', size: 3 }],
      added: ['"x\\ny"', 'plain'],
      backup: '"z\\tz"',
      extra: '"e\\177"',
      content: 'raw\x1b[31m',
    });
  });

  it('leaves absent and null names alone', () => {
    expect(terminalView({ entries: [], added: [], backup: null, content: '' }, schema, quoteName)).toStrictEqual({
      entries: [],
      added: [],
      backup: null,
      content: '',
    });
  });

  it('finds a name in every command that lists entries, files or paths', () => {
    const marked = (command: (typeof COMMANDS)[number]) =>
      JSON.stringify(terminalView(sample(command.output), command.output, () => 'NAME')).includes('NAME');
    const withNames = COMMANDS.filter(marked)
      .map((c) => c.name)
      .sort();
    expect(withNames).toStrictEqual([
      'delete',
      'diff',
      'edit',
      'grep',
      'inspect',
      'ls',
      'mkdir',
      'move',
      'open',
      'prune',
      'restore',
      'sessions',
      'status',
      'sync',
    ]);
  });
});

/** A value of the schema's shape with a string in every string field and one item in every array. */
function sample(schema: any): unknown {
  while (schema.wrapped) schema = schema.wrapped;
  if (schema.type === 'string') return 's';
  if (schema.type === 'array') return [sample(schema.item)];
  if (schema.entries)
    return Object.fromEntries(Object.entries(schema.entries).map(([key, item]) => [key, sample(item)]));
  return 0;
}
