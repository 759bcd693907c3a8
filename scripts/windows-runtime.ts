/**
 * Bun's Windows runtime (bun.exe of the npm package @oven/bun-windows-x64), of the
 * same version as the bun running this script: a compiled executable carries
 * bytecode only its own runtime version can load. It is fetched through npm, so
 * the registry (or mirror) npm is configured with is the one used, and cached in
 * .cache/bun-windows-x64/<version>/. `npm pack` rather than `npm install`: the
 * package declares os win32, which npm install refuses on Linux.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dir, '..');

export function windowsRuntime(): string {
  const dir = path.join(root, '.cache', 'bun-windows-x64', Bun.version);
  const exe = path.join(dir, 'bun.exe');
  if (fs.existsSync(exe)) return exe;
  fs.mkdirSync(dir, { recursive: true });
  console.error(
    `fetching Bun's Windows runtime (@oven/bun-windows-x64@${Bun.version}) into ${path.relative(root, dir)}`,
  );
  const pack = Bun.spawnSync(
    ['npm', 'pack', '--silent', '--pack-destination', dir, `@oven/bun-windows-x64@${Bun.version}`],
    { cwd: dir, stderr: 'inherit' },
  );
  const tarball = pack.stdout.toString().trim().split('\n').at(-1);
  if (pack.exitCode !== 0 || !tarball)
    throw new Error(`npm pack @oven/bun-windows-x64@${Bun.version} failed (exit ${pack.exitCode})`);
  // Unpacked aside and renamed into place, so an interrupted fetch never leaves a partial bun.exe to be taken as whole.
  const unpacked = fs.mkdtempSync(path.join(dir, 'unpack-'));
  const untar = Bun.spawnSync(['tar', '-xzf', path.join(dir, tarball), '-C', unpacked, 'package/bin/bun.exe'], {
    stderr: 'inherit',
  });
  fs.rmSync(path.join(dir, tarball), { force: true });
  if (untar.exitCode === 0) fs.renameSync(path.join(unpacked, 'package', 'bin', 'bun.exe'), exe);
  fs.rmSync(unpacked, { recursive: true, force: true });
  if (!fs.existsSync(exe)) throw new Error(`could not unpack bun.exe from ${tarball}`);
  return exe;
}
