/**
 * `zipfs mcp --read-only` (issue 33): only the tools that change nothing are listed, and a call of
 * another is refused with PERMISSION_DENIED. Which tools those are is what their annotations say
 * (readOnlyHint), and two more: open, which makes a session folder in zipfs's data folder and
 * changes no zip, and close, which removes that folder again, but not with `sync` (it writes the
 * zip) or `force` (it discards unsynced work, another client's perhaps).
 */
import { ZipfsError } from '../base/errors.ts';
import type { Command } from '../table/command.ts';
import { MCP_TOOL_PREFIX } from '../table/registry.ts';

/** Said in the server's instructions, so an agent does not plan a change it cannot make. */
export const READ_ONLY_NOTE =
  'This server is read-only (--read-only): it reads archives and their workspaces, and changes no file.';

/** Tools that change no zip and no workspace file, though their annotations cannot say readOnlyHint. */
const ALSO_READ_ONLY = new Set(['open', 'close']);

export function servedReadOnly(command: Command): boolean {
  return command.annotations.readOnlyHint || ALSO_READ_ONLY.has(command.name);
}

/** PERMISSION_DENIED for a call a read-only server does not make; nothing when it may run. */
export function refuseIfChanging(command: Command, args: Record<string, unknown> | undefined, served: string): void {
  const restart = 'this server was started with --read-only; start it without --read-only to change anything';
  if (!servedReadOnly(command))
    throw new ZipfsError(
      'PERMISSION_DENIED',
      `${MCP_TOOL_PREFIX}${command.name} changes files, and ${restart}. The tools it serves are ${served}.`,
    );
  const changing = command.name === 'close' && (['sync', 'force'] as const).find((key) => args?.[key] === true);
  if (changing)
    throw new ZipfsError(
      'PERMISSION_DENIED',
      `${MCP_TOOL_PREFIX}close with ${changing} ${changing === 'sync' ? 'writes the zip' : 'discards work'}, and ` +
        `${restart}. Close without it closes a session with nothing unsynced.`,
    );
}
