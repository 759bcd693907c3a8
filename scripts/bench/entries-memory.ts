/**
 * Peak memory (and time) of open, status and sync on an archive of many small entries: does it stay flat as the count
 * doubles?
 */
import fs from 'node:fs';
import path from 'node:path';

export interface EntriesRun {
  open: { seconds: number; rssKiB: number };
  status: { seconds: number; rssKiB: number };
  sync: { seconds: number; rssKiB: number };
}

function timed(command: string[], env: Record<string, string | undefined>): { seconds: number; rssKiB: number } {
  Bun.spawnSync(['sync']);
  const result = Bun.spawnSync(['/usr/bin/time', '-f', '%M %e', ...command], { env, stdout: 'ignore', stderr: 'pipe' });
  if (result.exitCode !== 0) throw new Error(`${command.join(' ')} failed: ${result.stderr.toString()}`);
  const [rss, seconds] = result.stderr.toString().trim().split('\n').at(-1)!.split(' ').map(Number);
  return { seconds: seconds!, rssKiB: rss! };
}

/** `lazy`: open with --lazy (nothing extracted), so the change is a file written at an entry's path. */
export function entriesMemory(
  binary: string,
  scratch: string,
  archive: string,
  member: string,
  lazy = false,
): EntriesRun {
  const dir = fs.mkdtempSync(path.join(scratch, 'entries-'));
  const zip = path.join(dir, 'many.zip');
  fs.copyFileSync(archive, zip);
  const env = { ...process.env, ZIPFS_HOME: path.join(dir, 'home'), ZIPFS_MAX_ENTRIES: '1000000' };
  const open = timed([binary, 'open', zip, ...(lazy ? ['--lazy'] : [])], env);
  const status = timed([binary, 'status'], env);
  const changed = path.join(dir, 'home', 'workspaces', 'many', 'contents', member);
  fs.mkdirSync(path.dirname(changed), { recursive: true }); // a lazy session's folder starts empty
  fs.writeFileSync(changed, 'changed\n');
  const sync = timed([binary, 'sync', '--no-backup'], env);
  fs.rmSync(dir, { recursive: true, force: true });
  return { open, status, sync };
}
