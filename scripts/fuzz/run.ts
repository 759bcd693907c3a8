/**
 * The fuzz loop: mutants of the seed archives go through the compiled binary
 * as a user's would. For each one: no exit 70 (INTERNAL_ERROR), no hang,
 * nothing written outside the data directory's workspaces; and when it opens,
 * a write and a sync must succeed, and what sync wrote must pass a second
 * zipfs open and the reference readers present: `unzip -t` and Python's
 * zipfile (every entry read, CRCs checked), each judged on its own (a lazy
 * sync checks what it copies raw too: copy-check.ts). A reader not installed
 * checks nothing, and the report says which ran.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ERROR_CODES } from '../../src/base/errors.ts';
import { mutate } from './mutate.ts';
import { Random } from './random.ts';

export interface FuzzOptions {
  binary: string;
  seeds: { name: string; bytes: Uint8Array }[];
  count: number;
  seed: number;
  /** Scratch folder; each mutant gets a folder of its own inside it. */
  scratch: string;
  concurrency?: number;
  /** Per zipfs call: past it the call counts as hung. */
  timeoutMs?: number;
  log?: (line: string) => void;
  /**
   * Open lazily (issue 23) and grep every entry before the write and sync: what is never extracted
   * is read from the mutant itself, so its damage is met by grep and must be a ZipfsError, and sync
   * copies it raw, so the synced zip must pass unzip -t only where the mutant did.
   */
  lazy?: boolean;
}

export interface FuzzReport {
  mutants: number;
  opened: number;
  synced: number;
  /** How the mutants that did not open were refused: error code -> count. */
  refused: Record<string, number>;
  /** Lazy runs: mutants that opened, and whose damage the sync's check refused (the zip left as it was). */
  refusedAtSync?: number;
  /** Each broken promise, with what reproduces it (the reference readers' verdicts are apart, below). */
  failures: string[];
  /** What each reference reader found wrong with synced zips; absent for a reader not installed (nothing checked). */
  reference: Partial<Record<ReferenceReader, string[]>>;
}

/** The readers a synced zip is held to besides zipfs itself. */
export type ReferenceReader = 'unzip' | 'python';
const READER_PROGRAMS: Record<ReferenceReader, string> = { unzip: 'unzip', python: 'python3' };

const KNOWN_EXITS = new Set<number>(
  Object.values(ERROR_CODES)
    .filter((c) => c.exit !== ERROR_CODES.INTERNAL_ERROR.exit)
    .map((c) => c.exit),
);

interface Call {
  code: number | null;
  stdout: string;
  stderr: string;
  hung: boolean;
}

async function call(binary: string, args: string[], home: string, cwd: string, timeoutMs: number): Promise<Call> {
  const child = Bun.spawn([binary, ...args], {
    cwd,
    env: { ...process.env, ZIPFS_HOME: home, NO_COLOR: '1', ZIPFS_SESSION: '' },
    stdout: 'pipe',
    stderr: 'pipe',
    stdin: 'ignore',
  });
  let hung = false;
  const timer = setTimeout(() => {
    hung = true;
    child.kill('SIGKILL');
  }, timeoutMs);
  const [stdout, stderr, code] = await Promise.all([
    new Response(child.stdout).text(),
    new Response(child.stderr).text(),
    child.exited,
  ]);
  clearTimeout(timer);
  return { code: hung ? null : code, stdout, stderr, hung };
}

/** Everything below `dir`, as relative paths (folders end with /). */
function tree(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const relative = `${prefix}${entry.name}`;
    if (entry.isDirectory()) out.push(`${relative}/`, ...tree(path.join(dir, entry.name), `${relative}/`));
    else out.push(relative);
  }
  return out;
}

/**
 * The data directory may hold only sessions (contents/, manifest.jsonl, its stat index and status hint, a lazy one's
 * central.bin and read cache, the base zip a merge reads, a merge's marked files): anything else escaped a workspace.
 */
function strayInHome(home: string): string[] {
  const files = ['manifest\\.jsonl', 'stat-index\\.bin', 'status-changed', 'central\\.bin', 'base\\.zip']
    .concat(['merging\\.json', 'contents\\/.*', 'read-cache\\/.*'])
    .join('|');
  const sessionFile = new RegExp(`^workspaces\\/([^/]+\\/(${files})?)?$`);
  return tree(home).filter((p) => !sessionFile.test(p));
}

/** Python's zipfile over each file (every entry read, CRCs checked): file -> why it failed. */
function pythonCheck(files: string[]): Map<string, string> {
  const failures = new Map<string, string>();
  if (files.length === 0) return failures;
  const script = `
import sys, zipfile, json
bad = {}
for name in sys.argv[1:]:
    try:
        with zipfile.ZipFile(name) as z:
            for info in z.infolist():
                z.read(info)
    except Exception as e:
        bad[name] = repr(e)
print(json.dumps(bad))`;
  const result = Bun.spawnSync(['python3', '-c', script, ...files]);
  for (const [file, why] of Object.entries(JSON.parse(result.stdout.toString() || '{}') as Record<string, string>))
    failures.set(file, why);
  return failures;
}

export async function runFuzz(options: FuzzOptions): Promise<FuzzReport> {
  const random = new Random(options.seed);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const present = (reader: ReferenceReader) => Bun.which(READER_PROGRAMS[reader]) !== null;
  const report: FuzzReport = { mutants: 0, opened: 0, synced: 0, refused: {}, failures: [], reference: {} };
  for (const reader of ['unzip', 'python'] as const) if (present(reader)) report.reference[reader] = [];
  const synced: { file: string; label: string }[] = [];
  const hasUnzip = report.reference.unzip !== undefined;
  // Mutants are drawn up front, in order, so a seed names the same set whatever the concurrency.
  const jobs = Array.from({ length: options.count }, (_, i) => {
    const seed = options.seeds[i % options.seeds.length]!;
    const mutant = mutate(seed.bytes, random);
    return {
      i,
      label: `mutant ${i} of ${seed.name} (${mutant.description}; --seed ${options.seed})`,
      bytes: mutant.bytes,
    };
  });

  const check = async (job: (typeof jobs)[number]) => {
    const dir = path.join(options.scratch, `m${job.i}`);
    const home = path.join(dir, 'home');
    const cwd = path.join(dir, 'cwd');
    fs.mkdirSync(cwd, { recursive: true });
    const zip = path.join(dir, 'x.zip');
    fs.writeFileSync(zip, job.bytes);
    const fail = (what: string) => report.failures.push(`${job.label}: ${what}`);
    const expectKnown = (step: string, result: Call): boolean => {
      if (result.hung) fail(`${step} hung (killed after ${timeoutMs} ms)`);
      else if (!KNOWN_EXITS.has(result.code!) && result.code !== 0)
        fail(`${step} exited ${result.code}: ${result.stderr.trim().split('\n')[0]}`);
      else return true;
      return false;
    };
    report.mutants++;
    const open = await call(
      options.binary,
      ['open', zip, '--json', '--name', 'm', ...(options.lazy ? ['--lazy'] : [])],
      home,
      cwd,
      timeoutMs,
    );
    if (!expectKnown('open', open)) return;
    if (open.code !== 0) {
      const code = (JSON.parse(open.stdout) as { error: { code: string } }).error.code;
      report.refused[code] = (report.refused[code] ?? 0) + 1;
    } else {
      report.opened++;
      if (options.lazy) {
        // Every entry read from the zip: found, not found, or refused with a code; never a crash or a hang.
        const grep = await call(
          options.binary,
          ['grep', '.', '--count-all', '--binary', '--json'],
          home,
          cwd,
          timeoutMs,
        );
        // 0 found, 1 found nothing (grep's own codes), else a ZipfsError's exit with its JSON.
        if (
          grep.code !== 0 &&
          grep.code !== 1 &&
          expectKnown('grep', grep) &&
          JSON.parse(grep.stdout).error === undefined
        )
          fail(`grep exited ${grep.code} without an error: ${grep.stdout.trim()}`);
      }
      const write = await call(
        options.binary,
        ['write', 'fuzz-added.txt', 'added by the fuzzer', '--json'],
        home,
        cwd,
        timeoutMs,
      );
      const sync = await call(options.binary, ['sync', '--json'], home, cwd, timeoutMs);
      if (expectKnown('write', write) && expectKnown('sync', sync)) {
        if (options.lazy && write.code === 0 && sync.code !== 0) {
          // A lazy open reads no entry, so damage an eager open refuses is met at sync, whose check of the
          // archive it wrote refuses to put damage it copied in place of the zip: the zip must be as it was.
          if (!Buffer.from(fs.readFileSync(zip)).equals(Buffer.from(job.bytes)))
            fail(`a refused lazy sync changed the zip: ${sync.stdout.trim()}`);
          else report.refusedAtSync = (report.refusedAtSync ?? 0) + 1;
        } else if (write.code !== 0 || sync.code !== 0)
          fail(`opened, but write/sync failed: ${(write.code !== 0 ? write : sync).stdout.trim()}`);
        else {
          report.synced++;
          if (hasUnzip) {
            const test = Bun.spawnSync(['unzip', '-tqq', zip]);
            // 0 is clean; 1 is a warning unzip also gives the seed (a prefix stub, trailing junk).
            if (test.exitCode !== 0 && test.exitCode !== 1) {
              const said = (test.stdout.toString() + test.stderr.toString()).trim().split('\n').slice(0, 2);
              report.reference.unzip!.push(
                `${job.label}: unzip -t exit ${test.exitCode} on the synced zip: ${said.join(' | ')}`,
              );
            }
          }
          const reopen = await call(
            options.binary,
            ['open', zip, '--json', '--name', 'again', ...(options.lazy ? ['--lazy'] : [])],
            home,
            cwd,
            timeoutMs,
          );
          if (expectKnown('reopen', reopen) && reopen.code !== 0)
            fail(`zipfs cannot reopen the zip it synced: ${reopen.stdout.trim()}`);
          synced.push({ file: zip, label: job.label });
        }
      }
    }
    // Nothing outside: the mutant's folder holds its zip (and backup), an untouched cwd, and sessions.
    const outside = tree(dir).filter(
      (p) =>
        !['x.zip', 'x.zip.bak', 'cwd/', 'home/'].includes(p) && !/^x\.zip\.\d+\.bak$/.test(p) && !p.startsWith('home/'),
    );
    if (outside.length > 0 || fs.readdirSync(cwd).length > 0)
      fail(`wrote outside the data directory: ${[...outside, ...fs.readdirSync(cwd)].join(', ')}`);
    if (fs.existsSync(home)) {
      const stray = strayInHome(home);
      if (stray.length > 0)
        fail(`left something that is no session in the data directory: ${stray.slice(0, 5).join(', ')}`);
    }
  };

  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      await check(job);
      if (job.i % 100 === 99) options.log?.(`fuzz: ${job.i + 1}/${jobs.length}`);
    }
  };
  await Promise.all(Array.from({ length: options.concurrency ?? 3 }, worker));

  if (report.reference.python) report.reference.python = pythonFailures(synced);
  // Sessions and zips of passing mutants are not needed to reproduce anything.
  const failed = [...report.failures, ...Object.values(report.reference).flat()];
  for (const job of jobs)
    if (!failed.some((f) => f.startsWith(`mutant ${job.i} `)))
      fs.rmSync(path.join(options.scratch, `m${job.i}`), { recursive: true, force: true });
  return report;
}

/** Python's verdict on the synced zips: a sync checks what it copies raw (copy-check.ts), so every one must read. */
function pythonFailures(synced: { file: string; label: string }[]): string[] {
  return [...pythonCheck(synced.map((s) => s.file))].map(
    ([file, why]) =>
      `${synced.find((s) => s.file === file)!.label}: Python's zipfile cannot read the synced zip: ${why}`,
  );
}
