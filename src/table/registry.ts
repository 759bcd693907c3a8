/**
 * The one dispatch table. The CLI subcommands, the MCP tool list, help text
 * and the tests' registry checks are all generated from this array; adding an
 * operation means adding its file to src/commands/ and one line here.
 */
import type { Command } from './command.ts';
import { close } from '../commands/close.ts';
import { del } from '../commands/delete.ts';
import { diff } from '../commands/diff.ts';
import { edit } from '../commands/edit.ts';
import { extract } from '../commands/extract.ts';
import { grep } from '../commands/grep.ts';
import { inspect } from '../commands/inspect.ts';
import { ls } from '../commands/ls.ts';
import { mkdir } from '../commands/mkdir.ts';
import { move } from '../commands/move.ts';
import { open } from '../commands/open.ts';
import { path } from '../commands/path.ts';
import { prune } from '../commands/prune.ts';
import { read } from '../commands/read.ts';
import { restore } from '../commands/restore.ts';
import { sessions } from '../commands/sessions.ts';
import { status } from '../commands/status.ts';
import { sync } from '../commands/sync.ts';
import { tree } from '../commands/tree.ts';
import { write } from '../commands/write.ts';

export const COMMANDS: readonly Command[] = [
  open,
  inspect,
  sessions,
  path,
  ls,
  tree,
  read,
  write,
  edit,
  mkdir,
  move,
  del,
  extract,
  grep,
  status,
  diff,
  restore,
  sync,
  close,
  prune,
] as unknown as Command[];

export const MCP_TOOL_PREFIX = 'zipfs_';

/** The command a CLI word names: its name, or one of its aliases (`mv`). */
export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name || c.cli.aliases?.includes(name));
}
