#!/usr/bin/env bun
/**
 * Side-by-side benchmark: zipfs against Info-ZIP, 7-Zip and bsdtar on the same
 * archives, interleaved round by round after a warm-up, reported as medians
 * and paired ratios against a reference row. Timings never go into tests.
 *   bun run bench                        every task at --scale 0.5, 5 rounds
 *   bun run bench -- --scale 1 --rounds 7
 *   bun run bench -- --quick             a smoke run in well under a minute
 *   bun run bench -- --only open,sync    some tasks (open, sync, status, memory, entries, verify, large, grep, mcp,
 * lazy)
 *   bun run bench -- --only remote --scale 1   archives on loopback HTTPS, WebDAV and S3 servers (1 GiB)
 *   bun run bench -- --only lazy --million   lazy sessions, with unzip and an eager session of the
 *                                        1,000,000-entry archive too (minutes more, 1M files written)
 * Archives are generated deterministically into .cache/bench (not committed).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { mcpHttpReadLatency, mcpReadLatency } from './bench/mcp-latency.ts';
import { ensurePeers } from './bench/peers.ts';
import { median, report } from './bench/report.ts';
import { runRounds, type Contender } from './bench/rounds.ts';
import { largeFileSync } from './bench/large-file.ts';
import { verifyCost } from './bench/verify-cost.ts';
import { entriesMemory } from './bench/entries-memory.ts';
import { grepContenders, grepLargeFile } from './bench/grep-cost.ts';
import { lazyReport } from './bench/lazy.ts';
import { remoteReport } from './bench/remote.ts';

const root = path.resolve(import.meta.dir, '..');
const { values } = parseArgs({
  options: {
    scale: { type: 'string', default: '0.5' },
    rounds: { type: 'string', default: '5' },
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    'no-install': { type: 'boolean', default: false },
    million: { type: 'boolean', default: false },
  },
});
const scale = values.quick ? 0.02 : Number(values.scale);
const rounds = values.quick ? 1 : Number(values.rounds);
const tasks = new Set((values.only ?? 'open,sync,status,memory,entries,verify,large,grep,mcp,lazy').split(','));
const binary = path.join(root, 'dist', 'zipfs');
const cache = path.join(root, '.cache', 'bench');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-bench-'));
const out: string[] = [];
const print = (text: string) => {
  console.log(text);
  out.push(text);
};

function archives(kinds: string[], at = scale): Record<string, string> {
  const made = Bun.spawnSync(
    ['python3', path.join(import.meta.dir, 'bench', 'make-archives.py'), cache, String(at), ...kinds],
    { stderr: 'inherit' },
  );
  if (made.exitCode !== 0) throw new Error('could not build the benchmark archives');
  const paths = made.stdout.toString().trim().split('\n');
  return Object.fromEntries(kinds.map((kind, i) => [kind, paths[i]!]));
}

const MiB = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const zipfsEnv = (home: string) => ({ ...process.env, ZIPFS_HOME: home, ZIPFS_MAX_ENTRIES: '1000000' });
function zipfsJson(args: string[], home: string): any {
  const result = Bun.spawnSync([binary, ...args, '--json'], { env: zipfsEnv(home) });
  const parsed = JSON.parse(result.stdout.toString());
  if (parsed.error) throw new Error(`zipfs ${args[0]}: ${parsed.error.message}`);
  return parsed;
}

/**
 * open: extracting the archive, against unzip, 7z and bsdtar into a fresh folder each round.
 * The previous output is renamed away, not deleted: deleting a large tree keeps the kernel
 * busy for a while after rm returns, which would slow whichever run came next.
 */
let moved = 0;
function openContenders(archive: string, peers: Set<string>): Contender[] {
  const dir = (name: string) => path.join(scratch, `out-${name}`);
  const trash = path.join(scratch, 'trash');
  const fresh = (name: string) => () => {
    fs.mkdirSync(trash, { recursive: true });
    if (fs.existsSync(dir(name))) fs.renameSync(dir(name), path.join(trash, String(moved++)));
    fs.mkdirSync(dir(name), { recursive: true });
  };
  const list: Contender[] = [];
  if (peers.has('unzip'))
    list.push({
      name: 'unzip -q -o',
      reference: true,
      prepare: fresh('unzip'),
      command: ['unzip', '-q', '-o', archive, '-d', dir('unzip')],
    });
  if (peers.has('7z'))
    list.push({
      name: '7z x',
      prepare: fresh('7z'),
      command: ['7z', 'x', '-y', '-bd', '-bso0', `-o${dir('7z')}`, archive],
    });
  if (peers.has('bsdtar'))
    list.push({
      name: 'bsdtar -xf',
      prepare: fresh('bsdtar'),
      command: ['bsdtar', '-xf', archive, '-C', dir('bsdtar')],
    });
  list.push({
    name: 'zipfs open',
    reference: list.length === 0,
    prepare: fresh('zipfs'),
    command: [binary, 'open', archive],
    env: zipfsEnv(dir('zipfs')),
  });
  // The same on one thread: what the second core buys (or costs) on this disk.
  list.push({
    name: 'zipfs open, 1 thread',
    prepare: fresh('zipfs-1'),
    command: [binary, 'open', archive],
    env: { ...zipfsEnv(dir('zipfs-1')), ZIPFS_THREADS: '1' },
  });
  return list;
}

/** sync of one small changed file: zipfs against `zip -u`, with a plain copy as the floor. */
function syncContenders(archive: string, member: string, label: string, peers: Set<string>): Contender[] {
  const home = path.join(scratch, `home-sync-${label}`);
  const forZipfs = path.join(scratch, `zipfs-${label}.zip`);
  const forInfoZip = path.join(scratch, `infozip-${label}.zip`);
  const infoZipDir = path.join(scratch, `infozip-${label}`);
  fs.copyFileSync(archive, forZipfs);
  fs.copyFileSync(archive, forInfoZip);
  fs.mkdirSync(path.join(infoZipDir, path.dirname(member)), { recursive: true });
  const workspace = zipfsJson(['open', forZipfs], home).workspace_path;
  let round = 0;
  const change = (dir: string) => {
    const file = path.join(dir, member);
    fs.writeFileSync(file, `changed in round ${++round}\n`);
    // zip -u replaces only entries older than the file, at DOS-time (2 s) resolution: step well ahead.
    const later = new Date(Date.now() + round * 10_000);
    fs.utimesSync(file, later, later);
  };
  const copy = path.join(scratch, `copy-${label}.zip`);
  const list: Contender[] = [];
  if (peers.has('zip'))
    list.push({
      name: 'zip -u (Info-ZIP)',
      reference: true,
      prepare: () => change(infoZipDir),
      command: ['zip', '-q', '-u', forInfoZip, member],
      cwd: infoZipDir,
    });
  // zip does not flush what it wrote, and zipfs does before its rename (DESIGN.md): the same update followed by
  // a flush of the archive (`sync FILE`, an fsync) shows what durability costs on this disk.
  const durable = path.join(scratch, `infozip-durable-${label}.zip`);
  if (peers.has('zip')) {
    fs.copyFileSync(archive, durable);
    list.push({
      name: 'zip -u, then sync FILE (flushed)',
      prepare: () => change(infoZipDir),
      command: ['sh', '-c', 'zip -q -u "$0" "$1" && sync "$0"', durable, member],
      cwd: infoZipDir,
    });
  }
  // The same job as sync, done by others: Info-ZIP's scan-and-update of a whole tree, and git committing a change in
  // one.
  const tree = path.join(scratch, `tree-${label}`);
  if (peers.has('zip') && peers.has('unzip')) {
    const forFileSync = path.join(scratch, `filesync-${label}.zip`);
    fs.copyFileSync(archive, forFileSync);
    Bun.spawnSync(['unzip', '-q', '-o', archive, '-d', tree]);
    list.push({
      name: 'zip -FS -r (Info-ZIP scan and update)',
      prepare: () => change(tree),
      command: ['zip', '-q', '-FS', '-r', forFileSync, '.'],
      cwd: tree,
    });
    if (Bun.which('git')) {
      const repo = path.join(scratch, `git-${label}`);
      fs.cpSync(tree, repo, { recursive: true });
      const git = (...args: string[]) =>
        Bun.spawnSync(['git', '-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: repo });
      git('init', '-q');
      git('add', '-A');
      git('commit', '-qm', 'base');
      list.push({
        name: 'git commit -a (a change in the same tree)',
        prepare: () => change(repo),
        command: ['git', '-c', 'user.name=bench', '-c', 'user.email=bench@localhost', 'commit', '-qam', 'change'],
        cwd: repo,
      });
    }
  }
  list.push({
    name: 'zipfs sync',
    reference: list.length === 0,
    prepare: () => change(workspace),
    command: [binary, 'sync'],
    env: zipfsEnv(home),
  });
  list.push({
    name: 'cp (copy floor)',
    prepare: () => fs.rmSync(copy, { force: true }),
    command: ['cp', archive, copy],
  });
  return list;
}

/** status with nothing changed, against a stat of every file (the floor any status must pay). */
function statusContenders(archive: string): Contender[] {
  const home = path.join(scratch, 'home-status');
  const workspace = zipfsJson(['open', archive], home).workspace_path;
  const list: Contender[] = [
    { name: 'find -printf (stat walk)', reference: true, command: ['find', workspace, '-printf', '%s %T@\\n'] },
    { name: 'zipfs status', command: [binary, 'status'], env: zipfsEnv(home) },
  ];
  if (Bun.which('git')) {
    // git status of the same tree, committed once: what a person compares zipfs status with.
    const repo = path.join(scratch, 'git-status');
    fs.cpSync(workspace, repo, { recursive: true });
    for (const args of [
      ['init', '-q'],
      ['add', '-A'],
      ['commit', '-qm', 'base'],
    ])
      Bun.spawnSync(['git', '-c', 'user.name=bench', '-c', 'user.email=bench@localhost', ...args], { cwd: repo });
    Bun.spawnSync(['git', 'status', '--porcelain'], { cwd: repo }); // builds the index's stat cache
    list.push({ name: 'git status (same tree)', command: ['git', 'status', '--porcelain'], cwd: repo });
  }
  return list;
}

try {
  const peers = ensurePeers(!values['no-install'] && !values.quick);
  if (Bun.spawnSync([process.execPath, 'scripts/build.ts'], { cwd: root, stderr: 'inherit' }).exitCode !== 0)
    process.exit(1);
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  print(
    `## Benchmark\n\n${os.cpus().length} cores ` +
      `(${cpu}), ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, ${os.type()} ${os.release()}; ` +
      `scale ${scale}, ${rounds} rounds after a warm-up; ${new Date().toISOString().slice(0, 10)}\n`,
  );
  for (const note of peers.notes) print(`- ${note}`);
  const set = archives(['source', 'media', 'tiny', 'office']);
  const size = (kind: string) => fs.statSync(set[kind]!).size;

  if (tasks.has('open')) {
    for (const kind of ['source', 'media', 'tiny', 'office']) {
      print(
        report(
          `open: ${kind} (${MiB(size(kind))} archive)`,
          runRounds(openContenders(set[kind]!, peers.available), rounds),
          size(kind),
        ),
      );
    }
  }
  if (tasks.has('sync')) {
    print(
      report(
        `sync one small changed file: media (${MiB(size('media'))})`,
        runRounds(syncContenders(set.media!, 'notes.txt', 'media', peers.available), rounds),
        size('media'),
      ),
    );
    print(
      report(
        `sync one small changed file: source (${MiB(size('source'))})`,
        runRounds(syncContenders(set.source!, 'src/module000/file00000.ts', 'source', peers.available), rounds),
        size('source'),
      ),
    );
  }
  if (tasks.has('status')) {
    print(
      report(
        `status, nothing changed: tiny files (${Math.round(25000 * scale)} files)`,
        runRounds(statusContenders(set.tiny!), rounds),
        size('tiny'),
      ),
    );
  }
  if (tasks.has('memory')) {
    const doubled = archives(['media'], scale * 2).media!;
    const rows = ['| archive | open peak RSS MiB | sync peak RSS MiB |', '| --- | ---: | ---: |'];
    for (const [label, archive] of [
      [`media at scale ${scale}`, set.media!],
      [`media at scale ${scale * 2}`, doubled],
    ] as const) {
      const opened = runRounds(openContenders(archive, new Set()), 1)[0]!;
      const synced = runRounds(
        syncContenders(archive, 'notes.txt', `memory-${label.length}-${fs.statSync(archive).size}`, new Set()).filter(
          (c) => c.name === 'zipfs sync',
        ),
        1,
      )[0]!;
      rows.push(
        `| ${label} (${MiB(fs.statSync(archive).size)}) ` +
          `| ${(median(opened.peakRssKiB) / 1024).toFixed(0)} | ${(median(synced.peakRssKiB) / 1024).toFixed(0)} |`,
      );
    }
    print(['### memory: peak RSS as the archive doubles', '', ...rows, ''].join('\n'));
  }
  if (tasks.has('entries')) {
    const rows = [
      '| entries | open: peak RSS, time | status | sync of one small change |',
      '| ---: | ---: | ---: | ---: |',
    ];
    for (const count of values.quick ? [1000, 2000] : [50_000, 100_000]) {
      const archive = archives(['tiny'], count / 25_000).tiny!;
      const run = entriesMemory(binary, scratch, archive, 'tiny/00/item00000.txt');
      const cell = (step: { seconds: number; rssKiB: number }) =>
        `${(step.rssKiB / 1024).toFixed(0)} MiB, ${step.seconds.toFixed(2)} s`;
      rows.push(`| ${count.toLocaleString('en')} | ${cell(run.open)} | ${cell(run.status)} | ${cell(run.sync)} |`);
    }
    print(
      ['### memory at many entries: flat when the count doubles? (target: under 300 MiB)', '', ...rows, ''].join('\n'),
    );
  }
  if (tasks.has('verify')) {
    const rows = ['| archive | entries | read-back check, median | per entry |', '| --- | ---: | ---: | ---: |'];
    for (const kind of ['media', 'source', 'tiny']) {
      const cost = verifyCost(set[kind]!, values.quick ? 3 : 15);
      rows.push(
        `| ${kind} (${MiB(size(kind))}) | ${cost.entries} | ${cost.medianMs.toFixed(2)} ms ` +
          `| ${((cost.medianMs * 1000) / cost.entries).toFixed(1)} µs |`,
      );
    }
    print(
      ['### sync: the read-back check before the rename (verify-written.ts, nothing inflated)', '', ...rows, ''].join(
        '\n',
      ),
    );
  }
  if (tasks.has('large')) {
    const rows = ['| added file | zipfs sync | peak RSS | archive written |', '| --- | ---: | ---: | ---: |'];
    for (const bytes of values.quick ? [64 * 2 ** 20] : [2 ** 30, 5 * 2 ** 30]) {
      const run = largeFileSync(binary, scratch, bytes);
      rows.push(
        `| ${MiB(bytes)} (sparse: zeros) | ${run.seconds.toFixed(1)} s ` +
          `| ${MiB(run.peakRssKiB * 1024)} | ${MiB(run.archiveBytes)} |`,
      );
    }
    print(['### sync of one large added file: streamed through the deflater in pieces', '', ...rows, ''].join('\n'));
  }
  if (tasks.has('grep')) {
    const bytes = Math.round(400 * 2 ** 20 * scale);
    print(
      report(
        `grep over text: ${MiB(bytes)} in 20 files`,
        runRounds(grepContenders(binary, scratch, bytes), rounds),
        bytes,
      ),
    );
    const rows = ['| one text file | zipfs grep --count-all | peak RSS |', '| --- | ---: | ---: |'];
    for (const size of values.quick ? [64 * 2 ** 20] : [2 ** 28, 2 ** 30]) {
      const run = grepLargeFile(binary, scratch, size);
      rows.push(`| ${MiB(size)} | ${run.seconds.toFixed(1)} s | ${MiB(run.peakRssKiB * 1024)} |`);
    }
    print(
      ['### grep of one large text file: streamed in pieces, memory flat as the file grows', '', ...rows, ''].join(
        '\n',
      ),
    );
  }
  if (tasks.has('mcp')) {
    const home = path.join(scratch, 'home-mcp');
    const workspace = zipfsJson(['open', set.source!], home).workspace_path;
    fs.writeFileSync(path.join(workspace, 'page.txt'), 'x'.repeat(4096));
    const calls = values.quick ? 100 : 1000;
    const latency = await mcpReadLatency(binary, home, 'page.txt', calls);
    const http = await mcpHttpReadLatency(binary, home, 'page.txt', calls);
    const cold = runRounds(
      [{ name: 'zipfs sessions (cold start)', command: [binary, 'sessions'], env: zipfsEnv(home) }],
      Math.max(rounds, 5),
    )[0]!;
    print(
      [
        '### MCP and start-up',
        '',
        '| measure | value |',
        '| --- | ---: |',
        `| zipfs_read of a 4 KB file on a warm server, p50 (${calls} calls) | ${latency.p50.toFixed(2)} ms |`,
        `| same, p99 | ${latency.p99.toFixed(2)} ms |`,
        `| zipfs_read over Streamable HTTP (zipfs mcp --http), p50 / ` +
          `p99 | ${http.p50.toFixed(2)} / ${http.p99.toFixed(2)} ms |`,
        `| tools/list, ${latency.tools} tools | ${latency.toolsListBytes} bytes (budget 21,000 for the whole list) |`,
        `| \`zipfs sessions\` cold start, median | ${(median(cold.seconds) * 1000).toFixed(0)} ms |`,
        '',
      ].join('\n'),
    );
  }
  if (tasks.has('lazy')) {
    // Tiny entries at 100,000 and 1,000,000 (a smoke run: 1,000 and 10,000), whatever the scale.
    const counts = values.quick ? [1000, 10_000] : [100_000, 1_000_000];
    const many = counts.map((entries) => ({ archive: archives(['tiny'], entries / 25_000).tiny!, entries }));
    const lazy = await lazyReport({
      binary,
      scratch,
      rounds,
      peers: peers.available,
      media: set.media!,
      source: set.source!,
      many: [many[0]!, many[1]!],
      heavy: values.million || values.quick,
      calls: values.quick ? 100 : 1000,
    });
    print(lazy);
  }
  if (tasks.has('remote')) {
    // Not in the default set: it needs nginx, Apache and moto, and an archive of scale x 1 GiB.
    print(await remoteReport({ scratch, bytes: scale * 2 ** 30 }));
  }
  fs.mkdirSync(cache, { recursive: true });
  fs.writeFileSync(path.join(cache, `results-${scale}.md`), `${out.join('\n')}\n`);
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
