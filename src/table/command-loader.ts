/**
 * One command of the table, loaded alone: a CLI call runs one command, and loading the whole table
 * (registry.ts) evaluated every command's modules first, ~4 ms of every call's start-up (`zipfs
 * status` of 2,500 files: 34 ms of CPU, 30 without). Each row's module is required when its word
 * is first asked for; the table itself is loaded only where every row is needed (help, completion,
 * the MCP server). tests/registry.test.ts holds these words to the table's names and aliases.
 */
import type { Command } from './command.ts';

// require(), not import: the bundle evaluates a required module when it is called, not at start-up.
const ROWS: Record<string, () => Command> = {
  open: () => require('../commands/open.ts').open,
  inspect: () => require('../commands/inspect.ts').inspect,
  sessions: () => require('../commands/sessions.ts').sessions,
  path: () => require('../commands/path.ts').path,
  ls: () => require('../commands/ls.ts').ls,
  tree: () => require('../commands/tree.ts').tree,
  read: () => require('../commands/read.ts').read,
  write: () => require('../commands/write.ts').write,
  edit: () => require('../commands/edit.ts').edit,
  mkdir: () => require('../commands/mkdir.ts').mkdir,
  move: () => require('../commands/move.ts').move,
  delete: () => require('../commands/delete.ts').del,
  extract: () => require('../commands/extract.ts').extract,
  grep: () => require('../commands/grep.ts').grep,
  status: () => require('../commands/status.ts').status,
  diff: () => require('../commands/diff.ts').diff,
  restore: () => require('../commands/restore.ts').restore,
  sync: () => require('../commands/sync.ts').sync,
  close: () => require('../commands/close.ts').close,
  prune: () => require('../commands/prune.ts').prune,
};

/** Other words for a command (its `cli.aliases`). */
const ALIASES: Record<string, string> = { mv: 'move' };

/** The command a CLI word names (its name or an alias), loading only its own modules; undefined for any other word. */
export function commandNamed(word: string): Command | undefined {
  const name = Object.hasOwn(ALIASES, word) ? ALIASES[word]! : word;
  return Object.hasOwn(ROWS, name) ? ROWS[name]!() : undefined;
}

/** Every word commandNamed takes, for the test that holds them to the table. */
export const COMMAND_WORDS: readonly string[] = [...Object.keys(ROWS), ...Object.keys(ALIASES)];
