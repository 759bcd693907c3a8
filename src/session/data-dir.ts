import os from 'node:os';
import path from 'node:path';

/** Where zipfs keeps its workspaces: $ZIPFS_HOME, else $XDG_DATA_HOME/zipfs, else ~/.local/share/zipfs. */
export function dataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.ZIPFS_HOME) return path.resolve(env.ZIPFS_HOME);
  if (env.XDG_DATA_HOME) return path.resolve(env.XDG_DATA_HOME, 'zipfs');
  return path.join(os.homedir(), '.local', 'share', 'zipfs');
}

export function workspacesDir(home: string): string {
  return path.join(home, 'workspaces');
}

/** The files of one session: its folder, the extracted contents, and the manifest beside them. */
export function sessionPaths(home: string, name: string): { dir: string; contents: string; manifest: string } {
  const dir = path.join(workspacesDir(home), name);
  return { dir, contents: path.join(dir, 'contents'), manifest: path.join(dir, 'manifest.jsonl') };
}

/** Folders being filled by an open in progress; a leading dot keeps them out of session listings. */
export const STAGING_PREFIX = '.open-';
