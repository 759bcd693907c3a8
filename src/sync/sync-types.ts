/** What a sync is asked, and what it answers (sync-archive.ts). */
import type { Progress } from '../base/progress.ts';
import type { LockWait } from '../session/lock.ts';
import type { Session } from '../session/session-store.ts';
import type { Limits } from '../rules/limits.ts';

export interface SyncRequest {
  session: Session;
  force: boolean;
  /** Take the zip's own changes since the base beside the workspace's (merge-plan.ts). */
  merge?: boolean;
  dryRun: boolean;
  /** Keep the previous archive as `<zip>.bak`. */
  backup: boolean;
  progress?: Progress;
  /** Cancellation: checked between entries and before the rename; the temporary is removed. */
  signal?: AbortSignal;
  /** How long to wait for another process syncing the same zip. */
  wait: LockWait;
  /** Open's limits: sync writes no archive open would refuse. */
  limits: Limits;
}

export interface SyncResult {
  synced: boolean;
  backup_path: string | null;
  /** Where the backup `<zip>.bak` held before this sync went: the next numbered one (backup-history.ts). */
  older_backup_path?: string;
  files_modified: number;
  files_added: number;
  files_deleted: number;
  files_renamed?: number;
  /** A merge: what the zip's side brought into the workspace (`A path`, `M path`, `D path`). */
  from_zip?: string[];
  /** A merge's dry run: what the workspace's side brings (`A path`, `M path`, `D path`, `R from -> to`). */
  from_workspace?: string[];
  /** Text files both sides modified, merged by lines (their merged text is in the workspace and the zip). */
  merged_by_lines?: string[];
  /** What syncs killed outright had left beside the zip (zip-leftovers.ts), removed by this one. */
  leftovers_removed?: string[];
  /** Rewritten entries whose method zipfs cannot write, so deflated: "a.txt: bzip2 -> deflate" (method-changes.ts). */
  method_changed?: string[];
  /** A remote archive: the bytes uploaded. */
  bytes_sent?: number;
}

/** A sync's counts (its answer without synced and the backups). */
export type SyncCounts = Omit<SyncResult, 'synced' | 'backup_path' | 'older_backup_path'>;
