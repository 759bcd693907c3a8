/**
 * Lazy sessions (issue 23): what leaving the entries in the zip costs and saves, each row a ratio
 * against a reference run in the same rounds (interleaved, so drift in the machine hits both):
 * open --lazy against unzip extracting and Python's zipfile listing the same archive; a warm
 * zipfs_read of 4 KB from a lazy session against the same read from an extracted one; grep of a
 * lazy session against `unzip -p | grep -c`; sync of one changed entry, lazy against eager; and peak
 * memory of open, status and sync as the entry count grows tenfold, lazy and eager; and a one-file change through
 * `zipfs exec`, eager, --lazy and --only, against zip -u (exec-edit.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import { FileSource, readCentralDirectory } from '../../src/zip/index.ts';
import { entriesMemory, type EntriesRun } from './entries-memory.ts';
import { mcpReadLatencies } from './mcp-latency.ts';
import { median } from './report.ts';
import { runOnce, runRounds, type Contender, type Measured } from './rounds.ts';
import { execEditReport } from './exec-edit.ts';

export interface LazyBench {
  binary: string;
  scratch: string;
  rounds: number;
  /** The peer tools installed (unzip's rows are skipped without it). */
  peers: Set<string>;
  /** make-archives.py's media set and source tree at the run's scale. */
  media: string;
  source: string;
  /**
   * Archives of tiny entries, the second ten times the first (100,000 and 1,000,000 in a full run), with their counts.
   */
  many: [{ archive: string; entries: number }, { archive: string; entries: number }];
  /**
   * Run unzip and the eager open, status and sync on the larger many-entry archive (minutes, and as many files to write
   * and delete).
   */
  heavy: boolean;
  /** zipfs_read calls timed per session. */
  calls: number;
}

interface Row {
  measure: string;
  zipfs: string;
  reference: string;
  ratio?: number;
  /** The most the ratio may be, and how the target reads. */
  target: number;
  targetText: string;
  note?: string;
}

const PYTHON_LIST = 'import zipfile,sys; zipfile.ZipFile(sys.argv[1]).infolist()';
const GREP_PATTERN = 'omicron pi';
const seconds = (s: number) => (s < 1 ? `${(s * 1000).toFixed(0)} ms` : `${s.toFixed(2)} s`);
const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
const withCommas = (n: number) => n.toLocaleString('en');
const fileSize = (file: string) => {
  const size = fs.statSync(file).size / 2 ** 20;
  return `${size.toFixed(size < 10 ? 1 : 0)} MiB`;
};
/** The median of the per-round ratios of `a` to `b` (both from the same rounds). */
const paired = (a: Measured, b: Measured) => median(a.seconds.map((s, i) => s / b.seconds[i]!));

export async function lazyReport(o: LazyBench): Promise<string> {
  const trash = path.join(o.scratch, 'lazy-trash');
  fs.mkdirSync(trash, { recursive: true });
  let moved = 0;
  // The previous output is renamed away, not deleted: deleting a large tree keeps the kernel busy after rm returns.
  const fresh = (dir: string) => () => {
    if (fs.existsSync(dir)) fs.renameSync(dir, path.join(trash, String(moved++)));
    fs.mkdirSync(dir, { recursive: true });
  };
  const home = (name: string) => ({ ...process.env, ZIPFS_HOME: path.join(o.scratch, name) });
  const python = Bun.which('python3') !== null;
  const unzip = o.peers.has('unzip');
  const rows: Row[] = [];

  // 1. open --lazy against unzip extracting the archive and Python listing it.
  const openRows = (label: string, archive: string, unzipOnce: boolean) => {
    const lazyHome = path.join(o.scratch, `lazy-open-${rows.length}`);
    const unzipDir = path.join(o.scratch, `lazy-unzip-${rows.length}`);
    const zipfs: Contender = {
      name: 'zipfs open --lazy',
      prepare: fresh(lazyHome),
      command: [o.binary, 'open', archive, '--lazy'],
      env: { ...process.env, ZIPFS_HOME: lazyHome },
    };
    const extract: Contender = {
      name: 'unzip -q -d DIR',
      prepare: fresh(unzipDir),
      command: ['unzip', '-q', '-d', unzipDir, archive],
    };
    const list: Contender = { name: 'python3 zipfile infolist()', command: ['python3', '-c', PYTHON_LIST, archive] };
    const measured = runRounds([zipfs, ...(python ? [list] : []), ...(unzip && !unzipOnce ? [extract] : [])], o.rounds);
    const [mine, listed, extracted] = [
      measured[0]!,
      measured.find((m) => m.contender === list),
      measured.find((m) => m.contender === extract),
    ];
    const size = fileSize(archive);
    const zipfsCell = `${seconds(median(mine.seconds))}, ${mib(median(mine.peakRssKiB))}`;
    const vsUnzip: Row = {
      measure: `open --lazy: ${label} (${size})`,
      zipfs: zipfsCell,
      reference: 'unzip -q -d DIR: not installed',
      target: 1 / 50,
      targetText: '≤ 1/50 (0.02x)',
    };
    if (extracted) {
      rows.push({
        ...vsUnzip,
        reference: `unzip -q -d DIR: ${seconds(median(extracted.seconds))}`,
        ratio: paired(mine, extracted),
      });
    } else if (unzip && o.heavy) {
      // Minutes of file creation: once, after the rounds, against the median of zipfs's.
      const once = runOnce(extract);
      rows.push({
        ...vsUnzip,
        reference: `unzip -q -d DIR: ${seconds(once.seconds[0]!)} (1 round)`,
        ratio: median(mine.seconds) / once.seconds[0]!,
        note: 'unzip run once, against the median of zipfs',
      });
    } else {
      rows.push({
        ...vsUnzip,
        reference: unzip ? 'unzip -q -d DIR: skipped (minutes; bench --million runs it once)' : vsUnzip.reference,
      });
    }
    rows.push({
      measure: `open --lazy: ${label}`,
      zipfs: zipfsCell,
      reference: listed
        ? `python3 zipfile infolist(): ${seconds(median(listed.seconds))}, ${mib(median(listed.peakRssKiB))}`
        : 'python3: not installed',
      ratio: listed && paired(mine, listed),
      target: 2,
      targetText: '≤ 2x',
    });
  };
  openRows('media set', o.media, false);
  openRows(`${withCommas(o.many[1].entries)} tiny entries`, o.many[1].archive, o.many[1].entries > 100_000);

  // 2. A 4 KB zipfs_read on warm servers, one holding a lazy session and one an extracted session of the same archive.
  const source = new FileSource(o.source);
  const page = readCentralDirectory(source)
    .entries.filter((e) => !e.isDirectory && e.uncompressedSize >= 4096)
    .sort((a, b) => a.uncompressedSize - b.uncompressedSize)[0]!;
  source.close();
  for (const [name, flags] of [
    ['lazy-mcp', ['--lazy']],
    ['eager-mcp', []],
  ] as const) {
    if (Bun.spawnSync([o.binary, 'open', o.source, ...flags], { env: home(name) }).exitCode !== 0)
      throw new Error(`zipfs open ${flags.join(' ')} for the MCP row failed`);
  }
  const read = { path: page.name, limit: 4096 };
  const [lazyRead, eagerRead] = await mcpReadLatencies(
    o.binary,
    [
      { home: path.join(o.scratch, 'lazy-mcp'), read },
      { home: path.join(o.scratch, 'eager-mcp'), read },
    ],
    o.calls,
  );
  rows.push({
    measure:
      `zipfs_read, limit 4096, of a ${withCommas(page.uncompressedSize)}-byte deflated entry, warm MCP ` +
      `server, p50 of ${withCommas(o.calls)} (calls alternating)`,
    zipfs: `lazy session: ${lazyRead!.p50.toFixed(2)} ms (p99 ${lazyRead!.p99.toFixed(2)})`,
    reference: `extracted session: ${eagerRead!.p50.toFixed(2)} ms (p99 ${eagerRead!.p99.toFixed(2)})`,
    ratio: lazyRead!.p50 / eagerRead!.p50,
    target: 2,
    targetText: '≤ 2x',
  });

  // 3. grep of a lazy session (every entry streamed from the zip) against unzip -p piped to grep -c.
  // the whole search, not where the budget stops it
  const grepEnv = { ...home('lazy-grep'), ZIPFS_GREP_TIME_BUDGET_MS: '600000' };
  if (Bun.spawnSync([o.binary, 'open', o.source, '--lazy'], { env: grepEnv }).exitCode !== 0)
    throw new Error('zipfs open --lazy for the grep row failed');
  const grepMeasure = `grep '${GREP_PATTERN}', count only: source tree (${fileSize(o.source)}), lazy session`;
  if (unzip) {
    // Into a file: GNU grep writing to /dev/null (the runner's stdout) stops at the first match.
    const counted = path.join(o.scratch, 'lazy-grep-count.txt');
    const piped: Contender = {
      name: 'unzip -p | grep -c',
      reference: true,
      command: ['sh', '-c', 'unzip -p "$1" | grep -c -- "$2" > "$3"', 'sh', o.source, GREP_PATTERN, counted],
    };
    const zipfsGrep: Contender = {
      name: 'zipfs grep --count-all',
      command: [o.binary, 'grep', GREP_PATTERN, '--count-all', '--json'],
      env: grepEnv,
    };
    const [reference, mine] = runRounds([piped, zipfsGrep], o.rounds);
    const lines = Number(fs.readFileSync(counted, 'utf8'));
    const found = JSON.parse(Bun.spawnSync(zipfsGrep.command, { env: grepEnv }).stdout.toString()).total_matches;
    rows.push({
      measure: grepMeasure,
      zipfs: `zipfs grep --count-all --json: ${seconds(median(mine!.seconds))}, ${mib(median(mine!.peakRssKiB))}`,
      reference: `unzip -p \\| grep -c: ${seconds(median(reference!.seconds))}`,
      ratio: paired(mine!, reference!),
      target: 1.5,
      targetText: '≤ 1.5x',
      note:
        found === lines
          ? `both count ${withCommas(lines)}`
          : `counts differ: zipfs ${found} matches, grep ${lines} lines`,
    });
  } else {
    rows.push({
      measure: grepMeasure,
      zipfs: '',
      reference: 'unzip: not installed',
      target: 1.5,
      targetText: '≤ 1.5x',
    });
  }

  // 4. sync of one small changed entry, lazy against eager, each on its own copy of the media set.
  let round = 0;
  const syncContender = (name: string, flags: string[]): Contender => {
    const zip = path.join(o.scratch, `${name}.zip`);
    fs.copyFileSync(o.media, zip); // sync rewrites it: never the cached archive
    const opened = JSON.parse(
      Bun.spawnSync([o.binary, 'open', zip, ...flags, '--json'], { env: home(name) }).stdout.toString(),
    );
    if (!opened.workspace_path)
      throw new Error(`zipfs open ${flags.join(' ')} for the sync row failed: ${JSON.stringify(opened)}`);
    // In a lazy session notes.txt is only in the zip: a file written at its path is that entry, changed.
    const prepare = () =>
      fs.writeFileSync(path.join(opened.workspace_path, 'notes.txt'), `changed in round ${++round}\n`);
    return { name, prepare, command: [o.binary, 'sync'], env: home(name) };
  };
  const [eagerSync, lazySync] = runRounds(
    [syncContender('eager-sync', []), syncContender('lazy-sync', ['--lazy'])],
    o.rounds,
  );
  rows.push({
    measure: `sync of one small changed entry: media set (${fileSize(o.media)})`,
    zipfs: `lazy session: ${seconds(median(lazySync!.seconds))}, ${mib(median(lazySync!.peakRssKiB))}`,
    reference: `extracted session: ${seconds(median(eagerSync!.seconds))}, ${mib(median(eagerSync!.peakRssKiB))}`,
    ratio: paired(lazySync!, eagerSync!),
    target: 1,
    targetText: '≤ 1x',
  });

  // 5. Peak memory as the entry count grows tenfold: the eager run of the larger archive last (it writes and deletes
  // that many files).
  const member = 'tiny/00/item00000.txt';
  const runs: { lazy: EntriesRun; eager?: EntriesRun }[] = [];
  for (const [i, { archive }] of o.many.entries()) {
    const lazy = entriesMemory(o.binary, o.scratch, archive, member, true);
    runs.push({ lazy, eager: i === 0 || o.heavy ? entriesMemory(o.binary, o.scratch, archive, member) : undefined });
  }
  const cell = (step: { seconds: number; rssKiB: number } | undefined) =>
    step ? `${mib(step.rssKiB)}, ${step.seconds.toFixed(2)} s` : 'skipped (--million)';
  const memory = [
    '| entries | open --lazy | open (eager) | status, lazy | status, eager | sync of one change, lazy | sync, eager |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...runs.map(
      (run, i) =>
        `| ${withCommas(o.many[i]!.entries)} | ${cell(run.lazy.open)} | ${cell(run.eager?.open)} | ` +
        `${cell(run.lazy.status)} | ${cell(run.eager?.status)} | ${cell(run.lazy.sync)} | ${cell(run.eager?.sync)} |`,
    ),
  ];
  const steps = ['open', 'status', 'sync'] as const;
  const growth = steps.map((step) => runs[1]!.lazy[step].rssKiB / runs[0]!.lazy[step].rssKiB);
  const factor = o.many[1].entries / o.many[0].entries;
  const peak = Math.max(...steps.map((step) => runs[1]!.lazy[step].rssKiB));
  const verdict = (met: boolean) => (met ? 'met' : '**not met**');
  const summary =
    `Lazy, ${withCommas(o.many[0].entries)} → ${withCommas(o.many[1].entries)} entries (${factor}x): peak RSS ` +
    `grows ${steps.map((step, i) => `${step} ${growth[i]!.toFixed(2)}x`).join(', ')} ` +
    `(target: less than linear, ` +
    `under ${factor}x: ${verdict(growth.every((g) => g < factor))}); ` +
    `largest ${mib(peak)} at ${withCommas(o.many[1].entries)}` +
    (o.many[1].entries >= 1_000_000 ? ` (target: under 300 MiB: ${verdict(peak < 300 * 1024)})` : '');

  // 6. A CI job's one change through exec, eager, --lazy and --only, against zip -u (exec-edit.ts).
  const execSections: string[] = [];
  if (o.peers.has('zip')) {
    const sourceMember = (() => {
      const at = new FileSource(o.source);
      try {
        return readCentralDirectory(at).entries.find((e) => !e.isDirectory && e.uncompressedSize > 0)!.name;
      } finally {
        at.close();
      }
    })();
    const runs = [
      { archive: o.source, member: sourceMember, label: `source tree (${fileSize(o.source)})`, eagerOnce: false },
      { archive: o.many[0].archive, member, label: `${withCommas(o.many[0].entries)} tiny entries`, eagerOnce: true },
    ];
    for (const run of runs)
      execSections.push(execEditReport({ binary: o.binary, scratch: o.scratch, rounds: o.rounds, ...run }));
  } else execSections.push('exec of a one-file change: zip (Info-ZIP) is not installed, no reference\n');

  const ratioCell = (row: Row) =>
    row.ratio === undefined ? '-' : row.ratio < 0.1 ? `${row.ratio.toFixed(4)}x` : `${row.ratio.toFixed(2)}x`;
  const met = (row: Row) => (row.ratio === undefined ? '-' : row.ratio <= row.target ? 'yes' : '**no**');
  return [
    '### lazy sessions (issue 23): each row against its reference, interleaved in this run',
    '',
    '| measure | zipfs | reference | ratio | target | met |',
    '| --- | ---: | ---: | ---: | ---: | :---: |',
    ...rows.map(
      (row) =>
        `| ${row.measure}${row.note ? ` (${row.note})` : ''} | ${row.zipfs} | ${row.reference} | ${ratioCell(row)} ` +
        `| ${row.targetText} | ${met(row)} |`,
    ),
    '',
    '#### peak RSS and time, one run each (/usr/bin/time): open, status with nothing changed, sync of one changed ' +
      'entry',
    '',
    ...memory,
    '',
    summary,
    '',
    ...execSections,
  ].join('\n');
}
