/**
 * bun test preload: the end-to-end tests drive the compiled binary, so build
 * dist/zipfs when it is missing or older than any source file.
 */
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dir, '../..');
export const BINARY = path.join(root, 'dist', process.platform === 'win32' ? 'zipfs.exe' : 'zipfs');

function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(full) : fs.statSync(full).mtimeMs);
  }
  return newest;
}

const built = fs.existsSync(BINARY) ? fs.statSync(BINARY).mtimeMs : 0;
const sources = Math.max(newestSource(path.join(root, 'src')), fs.statSync(path.join(root, 'package.json')).mtimeMs);
if (built < sources) {
  const result = Bun.spawnSync([process.execPath, 'scripts/build.ts'], {
    cwd: root,
    stdout: 'ignore',
    stderr: 'inherit',
  });
  if (result.exitCode !== 0) throw new Error('building dist/zipfs failed; run `bun run build` to see why');
}
