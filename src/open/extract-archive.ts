/**
 * An eager open's extraction: every planned item written into the staging
 * folder, from one descriptor of the zip, on this thread and (for a large
 * archive) a worker's.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, type ErrorCode } from '../base/errors.ts';
import type { Progress } from '../base/progress.ts';
import { cipherFacts, passwordEnv, type CentralDirectory, type FileSource } from '../zip/index.ts';
import { taskCost, writeFileTask, type FileTask } from '../files/extract-files.ts';
import type { ExtractJob, ExtractReport } from './extract-worker.ts';
import type { ExtractionPlan } from './extraction-plan.ts';
import { eventLoopTurns } from '../base/event-loop-turns.ts';
import { entryRecord, type EntryRecord } from '../session/manifest.ts';
import { workerPath } from '../base/worker-path.ts';
import { phase } from '../base/phase-trace.ts';

/** Below these, a second thread costs more to start than it saves. */
const PARALLEL_MIN_BYTES = 16 * 1024 * 1024;
const PARALLEL_MIN_FILES = 2000;

/** Where and how open extracts: the contents folder, the threads it may use, progress and cancel. */
export interface ExtractInto {
  root: string;
  threads: number;
  progress?: Progress;
  signal?: AbortSignal;
}

/**
 * Writes every planned item and returns the manifest entry records, in
 * central-directory order. Entries are read in offset order, so the archive is
 * read front to back; large archives are split into two contiguous shares of
 * about equal cost, one for this thread and one for a worker, to use both cores.
 */
export async function extract(
  source: FileSource,
  directory: CentralDirectory,
  plan: ExtractionPlan,
  { root, threads, progress, signal }: ExtractInto,
): Promise<EntryRecord[]> {
  fs.mkdirSync(root);
  for (const dir of plan.directories) fs.mkdirSync(path.join(root, dir), { recursive: true });

  const ordered = [...plan.items].sort((a, b) => a.entry.localHeaderOffset - b.entry.localHeaderOffset);
  const tasks: FileTask[] = [];
  ordered.forEach((item, i) => {
    if (item.type === 'dir') return;
    const { entry } = item;
    tasks.push({
      entry: {
        name: entry.name,
        flags: entry.flags,
        method: entry.method,
        compressedSize: entry.compressedSize,
        uncompressedSize: entry.uncompressedSize,
        crc32: entry.crc32,
        localHeaderOffset: entry.localHeaderOffset,
        ...cipherFacts(entry),
      },
      path: item.path,
      symlink: item.type === 'symlink',
      unixMode: entry.unixMode,
      mtimeMs: entry.modifiedAt.getTime(),
      limit: ordered[i + 1]?.entry.localHeaderOffset ?? directory.centralStart,
    });
  });

  phase('open: extract: plan tasks');
  let done = 0;
  const advance = (bytes: number, label?: string) => {
    done += bytes;
    progress?.(done, plan.totalBytes, label);
  };
  // ZIPFS_THREADS=1 keeps open on one thread (a busy machine, or measuring the difference).
  const parallel = threads > 1 && (plan.totalBytes >= PARALLEL_MIN_BYTES || tasks.length >= PARALLEL_MIN_FILES);
  const split = parallel ? splitPoint(tasks) : tasks.length;
  const helper =
    split < tasks.length ? startWorker({ fd: source.fd, root, tasks: tasks.slice(split) }, advance) : undefined;
  try {
    // Progress notifications go out and a cancel gets through while a large archive extracts.
    const pause = eventLoopTurns(signal);
    for (const task of tasks.slice(0, split)) {
      await writeFileTask(source, task, root);
      advance(task.entry.uncompressedSize, task.path);
      await pause();
    }
    if (helper) await (signal ? Promise.race([helper.finished, whenAborted(signal)]) : helper.finished);
  } finally {
    // Wait until the worker is gone: a failed open removes the staging folder next.
    await helper?.stop();
  }

  // Writing files touched their folders' times; restore the archive's times last, deepest first.
  for (const item of [...plan.items].reverse()) {
    if (item.type === 'dir') fs.utimesSync(path.join(root, item.path), item.entry.modifiedAt, item.entry.modifiedAt);
  }
  return plan.items.map((item) => entryRecord(item.entry, item.path, item.type));
}

/** Rejects with the signal's reason once it is aborted (never settles otherwise). */
function whenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
}

/** The index that splits the tasks into two contiguous runs of about equal cost. */
function splitPoint(tasks: FileTask[]): number {
  const total = tasks.reduce((sum, task) => sum + taskCost(task), 0);
  let running = 0;
  for (let i = 0; i < tasks.length; i++) {
    running += taskCost(tasks[i]!);
    if (running >= total / 2) return i + 1;
  }
  return tasks.length;
}

function startWorker(
  job: ExtractJob,
  advance: (bytes: number) => void,
): { finished: Promise<void>; stop(): Promise<void> } {
  // The environment as this process has it now (--password-file sets ZIPFS_PASSWORD_FILE after start-up), with a
  // password a prompt or an elicitation gave.
  const worker = new Worker(workerPath('open/extract-worker.ts'), { env: passwordEnv() });
  const finished = new Promise<void>((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<ExtractReport>) => {
      const report = event.data;
      if (report.kind === 'progress') advance(report.bytes);
      else if (report.kind === 'done') resolve();
      else if (report.errno) reject(Object.assign(new Error(report.message), { code: report.errno }));
      else reject(new ZipfsError(report.code as ErrorCode, report.message));
    };
    worker.onerror = (event) =>
      reject(new ZipfsError('INTERNAL_ERROR', `The extraction thread failed: ${event.message}.`));
  });
  finished.catch(() => {}); // observed by the caller's await; never an unhandled rejection
  worker.postMessage(job);
  const closed = new Promise<void>((resolve) => worker.addEventListener('close', () => resolve(), { once: true }));
  return {
    finished,
    stop: () => {
      worker.terminate();
      return closed;
    },
  };
}
