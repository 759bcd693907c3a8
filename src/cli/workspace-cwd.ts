/**
 * Paths as a shell user means them: inside a workspace folder, `zipfs read
 * input.csv` is the input.csv of the current folder, as `git add` takes paths,
 * and a leading `/` still means the workspace root. Outside any workspace,
 * paths are taken from the root as always.
 */
import path from 'node:path';
import type { Command } from '../table/command.ts';
import { workspaceOfFolder } from '../session/workspace-of-folder.ts';

export function rebaseOnCurrentFolder(
  command: Command,
  input: Record<string, unknown>,
  home: string,
  cwd: string,
  sessionFromEnv: string | undefined,
): void {
  const keys = command.cli.workspacePaths;
  if (!keys) return;
  const place = workspaceOfFolder(home, cwd);
  // Only for the workspace one stands in: another session named explicitly takes root-relative paths.
  const named = (input.session as string | undefined) ?? sessionFromEnv;
  if (!place || place.folder === undefined || place.folder === '' || (named !== undefined && named !== place.session))
    return;
  for (const key of keys) {
    const value = input[key];
    if (value === undefined && key === keys[0] && command.cli.fromCurrentFolder) input[key] = place.folder;
    const fromHere = (one: unknown) =>
      typeof one === 'string' && !one.startsWith('/') && !one.startsWith('\\')
        ? path.posix.join(place.folder!, one)
        : one;
    if (value !== undefined) input[key] = Array.isArray(value) ? value.map(fromHere) : fromHere(value);
  }
}
