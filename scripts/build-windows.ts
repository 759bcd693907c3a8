#!/usr/bin/env bun
/**
 * The Windows binary as the Wine tests run it: dist/windows-x64/zipfs.exe, built
 * by scripts/build.ts with Bun's Windows runtime fetched through npm (so a clean
 * clone with node and npm is enough; scripts/windows-runtime.ts).
 *   bun run build:windows                    dist/windows-x64/zipfs.exe
 *   bun run build:windows -- --wine-shim     and bcryptprimitives.dll beside it
 * --wine-shim builds ../shared/tools/wine/bcryptprimitives.c with mingw-w64: Bun's
 * runtime imports ProcessPrng from bcryptprimitives.dll, which Wine ships only from
 * 8.13 on (Debian bookworm has 8.0), so without it zipfs.exe exits at once under
 * Wine. Wine loads a DLL from the exe's folder first. Test-only: releases never ship it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { windowsRuntime } from './windows-runtime.ts';

const root = path.resolve(import.meta.dir, '..');
export const WINDOWS_DIR = path.join(root, 'dist', 'windows-x64');
const SHIM_SOURCE = path.resolve(root, '..', 'shared', 'tools', 'wine', 'bcryptprimitives.c');
const MINGW_GCC = 'x86_64-w64-mingw32-gcc';

/** Compiles the ProcessPrng stand-in into `dir` (beside the exes that need it). */
export function buildWineShim(dir: string): void {
  if (!fs.existsSync(SHIM_SOURCE)) throw new Error(`${SHIM_SOURCE} is missing (../shared beside this checkout)`);
  if (!Bun.which(MINGW_GCC)) throw new Error(`${MINGW_GCC} is missing: apt-get install mingw-w64`);
  fs.mkdirSync(dir, { recursive: true });
  const gcc = Bun.spawnSync(
    [MINGW_GCC, '-shared', '-O2', '-o', path.join(dir, 'bcryptprimitives.dll'), SHIM_SOURCE, '-ladvapi32'],
    { stderr: 'inherit' },
  );
  if (gcc.exitCode !== 0) throw new Error(`${MINGW_GCC} failed (exit ${gcc.exitCode})`);
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { 'wine-shim': { type: 'boolean' } } });
  const built = Bun.spawnSync(
    [
      process.execPath,
      'scripts/build.ts',
      '--target',
      'windows-x64',
      '--runtime',
      windowsRuntime(),
      '--outfile',
      path.join(WINDOWS_DIR, 'zipfs.exe'),
    ],
    { cwd: root, stdout: 'inherit', stderr: 'inherit' },
  );
  if (built.exitCode !== 0) process.exit(built.exitCode ?? 1);
  if (values['wine-shim']) {
    buildWineShim(WINDOWS_DIR);
    console.error(
      `built ${path.relative(root, path.join(WINDOWS_DIR, 'bcryptprimitives.dll'))} (for Wine 8.0; test-only)`,
    );
  }
}
