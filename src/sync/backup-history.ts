/**
 * The backups a sync keeps beside the zip. `<zip>.bak` is always the archive
 * as it was before the latest sync (scripts rely on that name); the ones
 * before it are numbered as `cp --backup=numbered` numbers them,
 * `<zip>.1.bak`, `<zip>.2.bak`, ..., the number growing (the `.bak` ending
 * keeps `*.zip`, `*.whl` and `lib/*.jar` globs off them). Before a sync puts
 * its new `.bak` in place, the one there is renamed to the next free number,
 * so no sync overwrites a backup: the zip as a session opened it stays until
 * ZIPFS_KEEP_BACKUPS later syncs have passed, the oldest numbered ones being
 * removed beyond that count.
 *
 * Removing a backup frees its blocks, tens of milliseconds for a large
 * archive, so nothing waits for it: the oldest beyond the count are removed
 * while the new archive is written (they are older than `.bak`, which stays
 * until the new archive has replaced the zip), and one this sync itself makes
 * beyond the count (ZIPFS_KEEP_BACKUPS=0) once the zip has been replaced.
 *
 * Every step is a rename or an unlink: a sync killed at any moment leaves the
 * zip and every backup whole. The new `.bak` is placed before the rename over
 * the zip, and put back as it was when that rename fails, so a sync killed in
 * between leaves `.bak` holding the zip as it still is (nothing lost) rather
 * than a draft the next sync would remove as a dead temporary.
 */
import fs from 'node:fs';
import path from 'node:path';
import { keepOnExit, removeOnExit } from '../base/exit-cleanup.ts';
import { backupPathFor, draftBackup, renameOver } from './sync-files.ts';

/** What a sync that kept a backup says about them (its answer's backup fields). */
export interface BackupReport {
  backup_path: string;
  /** Where the backup `.bak` held before this sync went: `<zip>.N.bak`. */
  older_backup_path?: string;
}

/** `reports.zip` and 3 -> `reports.zip.3.bak`. */
export function numberedBackupPath(target: string, number: number): string {
  return `${target}.${number}.bak`;
}

const NUMBER = /^[1-9][0-9]{0,8}$/;

/** The numbered backups of `target` (the zip's real path) in its folder, oldest first; any kind of file counts. */
export function numberedBackups(target: string): { path: string; number: number; isFile: boolean }[] {
  const dir = path.dirname(target);
  const prefix = `${path.basename(target)}.`;
  const found: { path: string; number: number; isFile: boolean }[] = [];
  for (const item of fs.readdirSync(dir, { withFileTypes: true })) {
    const { name } = item;
    if (!name.startsWith(prefix) || !name.endsWith('.bak')) continue;
    const middle = name.slice(prefix.length, -'.bak'.length);
    if (NUMBER.test(middle)) found.push({ path: path.join(dir, name), number: Number(middle), isFile: item.isFile() });
  }
  return found.sort((a, b) => a.number - b.number);
}

/** Starts an unlink on the runtime's threads; resolves to whether it removed the file (a held one stays). */
function removeAside(file: string): Promise<boolean> {
  return fs.promises.unlink(file).then(
    () => true,
    () => false,
  );
}

function sameFile(a: fs.Stats | undefined, b: fs.Stats | undefined): boolean {
  return a !== undefined && b !== undefined && a.dev === b.dev && a.ino === b.ino;
}

/**
 * A sync's backups of `target`, keeping `keep` numbered ones: made under the zip's lock before the new archive is
 * written, which is when the oldest beyond the count start to go.
 */
export class BackupHistory {
  readonly #target: string;
  readonly #backup: string;
  /** `.bak` is there to be moved to a number; not when it already is the zip itself (a killed sync's). */
  readonly #shift: boolean;
  readonly #next: string;
  /** This sync made `.bak` (none was there), or moved the one there to `#next`: what undo reverses. */
  #made = false;
  #shifted = false;
  readonly #removals: Promise<boolean>[] = [];
  readonly #lateRemovals: number;

  constructor(target: string, keep: number) {
    this.#target = target;
    this.#backup = backupPathFor(target);
    const current = fs.statSync(this.#backup, { throwIfNoEntry: false });
    this.#shift = current !== undefined && !sameFile(current, fs.statSync(target, { throwIfNoEntry: false }));
    const numbered = numberedBackups(target);
    this.#next = numberedBackupPath(target, (numbered.at(-1)?.number ?? 0) + 1);
    // Only plain files are ever removed: a folder or link named like a backup is someone's own.
    const files = numbered.filter((backup) => backup.isFile);
    const excess = Math.max(0, files.length + (this.#shift ? 1 : 0) - keep);
    // The ones there now go at once, while the archive is written; one this sync makes, after the rename.
    const early = files.slice(0, Math.min(excess, files.length));
    this.#lateRemovals = excess - early.length;
    for (const backup of early) this.#remove(backup.path);
  }

  #remove(file: string): void {
    this.#removals.push(removeAside(file));
  }

  /**
   * Puts a copy of the zip as it is (a hard link where it can) in place as `.bak`, the backup there moved to the
   * next number first. Called just before the new archive is renamed over the zip.
   */
  async place(): Promise<void> {
    // `.bak` already is the zip as it is (a sync killed before its rename placed it): kept as it is.
    if (!this.#shift && fs.existsSync(this.#backup)) return;
    const draft = draftBackup(this.#target);
    removeOnExit(draft);
    try {
      if (this.#shift) {
        await renameOver(this.#backup, this.#next);
        this.#shifted = true;
      }
      await renameOver(draft, this.#backup);
      this.#made = !this.#shifted;
    } catch (error) {
      this.undo();
      throw error;
    } finally {
      fs.rmSync(draft, { force: true });
      keepOnExit(draft);
    }
  }

  /**
   * The rename over the zip failed: `.bak` back as it was before place. Should that fail too, nothing is lost: the
   * older backup is under its number, and the zip is as it was.
   */
  undo(): void {
    try {
      if (this.#shifted) fs.renameSync(this.#next, this.#backup);
      else if (this.#made) fs.rmSync(this.#backup, { force: true });
    } catch {
      // left as said above
    }
    this.#shifted = false;
    this.#made = false;
  }

  /** The zip was replaced: a backup this sync made beyond the count goes now, and nothing waits for it here. */
  replaced(): void {
    if (!this.#shifted) return;
    if (this.#lateRemovals > 0) this.#remove(this.#next);
  }

  /**
   * What the answer says, once every removal has finished (they ran beside the sync's own work). Removals are not
   * listed: the answer's budget in tools/list keeps it to the one backup made (ZIPFS_KEEP_BACKUPS says the rest).
   */
  async report(): Promise<BackupReport> {
    await Promise.all(this.#removals);
    return { backup_path: this.#backup, ...(this.#shifted ? { older_backup_path: this.#next } : {}) };
  }
}

/** ", the one before it as x.zip.3.bak": what the answers' messages add to the backup's path. */
export function backupsSaid(report: { older_backup_path?: string }): string {
  return report.older_backup_path ? `, the one before it as ${report.older_backup_path}` : '';
}
