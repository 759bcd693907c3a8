#!/usr/bin/env bun
/**
 * Builds the single executable with `bun build --compile`.
 *   bun run build                         dist/zipfs for this machine
 *   bun run build -- --target linux-arm64 dist/zipfs-linux-arm64 (also darwin-x64, darwin-arm64, windows-x64,
 * linux-x64)
 *   bun run build -- --all                every target the toolchain can fetch
 *   bun run build -- --target windows-x64 --runtime PATH --outfile F   with that runtime executable instead of fetching
 * one, into F
 * Cross targets need Bun's runtime for that platform, which bun fetches from the npm registry
 * (scripts/build-windows.ts fetches the Windows one through npm and passes it as --runtime).
 */
import { parseArgs } from 'node:util';
import { existsSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';

const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'windows-x64'] as const;
const root = path.resolve(import.meta.dir, '..');
const { values } = parseArgs({
  options: {
    target: { type: 'string', multiple: true },
    all: { type: 'boolean' },
    runtime: { type: 'string' },
    outfile: { type: 'string' },
  },
});
const targets: (string | undefined)[] = values.all ? [...TARGETS] : (values.target ?? [undefined]);
if (values.outfile && targets.length !== 1) throw new Error('--outfile names the file of one target');

// Source maps of code-split chunks carry a content hash in their names: drop the previous build's.
const dist = values.outfile ? path.dirname(path.resolve(values.outfile)) : path.join(root, 'dist');
if (existsSync(dist)) for (const name of readdirSync(dist)) if (name.endsWith('.js.map')) rmSync(path.join(dist, name));
// Without NODE_ENV: the bundler inlines process.env.NODE_ENV, and a binary built under `bun test` (the
// preload builds one; bun test sets NODE_ENV=test) took it for good: consola then drops info lines,
// such as the MCP HTTP server's start-up line.
const buildEnv = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'NODE_ENV'));
let failed = 0;
for (const target of targets) {
  const outfile = values.outfile
    ? path.resolve(values.outfile)
    : path.join(root, 'dist', target ? `zipfs-${target}${target.startsWith('windows') ? '.exe' : ''}` : 'zipfs');
  // The workers (grep, extraction, edit's patterns) are entry points too: a worker in a compiled binary must be built
  // into it.
  // --splitting keeps what is imported lazily (the MCP server and its SDK, consola) in chunks of
  // their own, loaded only when used; --bytecode ships them precompiled, so nothing is parsed at
  // start: a CLI call starts in about 15 ms instead of 60 (a bare compiled Bun program: 6 ms).
  const args = [
    'build',
    '--compile',
    '--minify',
    '--sourcemap',
    '--splitting',
    '--bytecode',
    '--format=esm',
    '--no-compile-autoload-dotenv',
    '--no-compile-autoload-bunfig',
    // A CLI call runs most of its code once: JavaScriptCore compiles later (src/base/jit-policy.ts, which sets the
    // normal thresholds back for large work).
    '--compile-jit-policy=10',
    'src/main.ts',
    'src/search/grep-worker.ts',
    'src/open/extract-worker.ts',
    'src/files/edit-worker.ts',
    '--outfile',
    outfile,
  ];
  if (target) args.push('--target', `bun-${target}`);
  if (values.runtime) args.push(`--compile-executable-path=${values.runtime}`);
  const result = Bun.spawnSync([process.execPath, ...args], {
    cwd: root,
    env: buildEnv,
    stdout: 'inherit',
    stderr: 'inherit',
  });
  if (result.exitCode === 0) console.error(`built ${path.relative(root, outfile)}`);
  else {
    failed++;
    console.error(`could not build ${target ?? 'the host target'} (exit ${result.exitCode})`);
  }
}
process.exit(failed === 0 ? 0 : 1);
