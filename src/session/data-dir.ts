import fs from 'node:fs';
import os from 'node:os';
import { ZipfsError } from '../base/errors.ts';
import path from 'node:path';
import { hostPlatform, keepsDataInLocalAppData, type Platform } from '../rules/platform.ts';

/**
 * Where zipfs keeps its workspaces: $ZIPFS_HOME, else on Windows
 * %LOCALAPPDATA%\zipfs (where Windows programs keep per-user data that does
 * not roam), else $XDG_DATA_HOME/zipfs, else ~/.local/share/zipfs. It is made
 * when missing; something that is not a folder at that path is a mistake in
 * the variable, said as such.
 */
export function dataDir(env: NodeJS.ProcessEnv = process.env, platform: Platform = hostPlatform()): string {
  const [home, from] = env.ZIPFS_HOME
    ? [path.resolve(env.ZIPFS_HOME), 'ZIPFS_HOME']
    : keepsDataInLocalAppData(platform) && env.LOCALAPPDATA
      ? [path.resolve(env.LOCALAPPDATA, 'zipfs'), 'LOCALAPPDATA']
      : env.XDG_DATA_HOME
        ? [path.resolve(env.XDG_DATA_HOME, 'zipfs'), 'XDG_DATA_HOME']
        : [path.join(os.homedir(), '.local', 'share', 'zipfs'), undefined];
  const stats = fs.statSync(home, { throwIfNoEntry: false });
  if (stats && !stats.isDirectory()) {
    const cause = from ? `${from} names ${home}` : `zipfs keeps its sessions in ${home}`;
    throw new ZipfsError(
      'INVALID_INPUT',
      `${cause}, which is a file, not a folder. Point ${from ?? 'ZIPFS_HOME'} to a folder (it is made when ` +
        `missing), or move that file away.`,
    );
  }
  return home;
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
