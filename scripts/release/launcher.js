#!/usr/bin/env node
// The `zipfs` command of the npm package: runs the zipfs binary that npm installed for this
// platform from the package's optionalDependencies (@zipfs/<os>-<cpu>), passing arguments,
// standard streams (MCP over stdio), the exit code and a fatal signal through unchanged.
'use strict';
const { spawnSync } = require('node:child_process');

const PACKAGES = {
  'linux x64': '@zipfs/linux-x64',
  'linux arm64': '@zipfs/linux-arm64',
  'darwin x64': '@zipfs/darwin-x64',
  'darwin arm64': '@zipfs/darwin-arm64',
  'win32 x64': '@zipfs/windows-x64',
};

const platform = `${process.platform} ${process.arch}`;
const name = PACKAGES[platform];
if (!name) {
  console.error(
    `zipfs: there is no zipfs build for ${platform}. Build it from source: https://github.com/zipfs/zipfs#install`,
  );
  process.exit(1);
}
let binary;
try {
  binary = require.resolve(`${name}/bin/zipfs${process.platform === 'win32' ? '.exe' : ''}`);
} catch {
  console.error(
    `zipfs: the package ${name}, which holds the zipfs binary for ${platform}, is not installed. Reinstall zipfs with optional dependencies (not --no-optional / --omit=optional).`,
  );
  process.exit(1);
}
// A session belongs to the process of the job that opened it, which zipfs takes to be its parent: that is
// this launcher, gone when the command ends, so name the launcher's own parent (the job's shell) instead.
const env = process.env.ZIPFS_OWNER_PID ? process.env : { ...process.env, ZIPFS_OWNER_PID: String(process.ppid) };
const result = spawnSync(binary, process.argv.slice(2), { stdio: 'inherit', env });
if (result.error) {
  console.error(`zipfs: could not run ${binary}: ${result.error.message}`);
  process.exit(1);
}
if (result.signal) process.kill(process.pid, result.signal);
process.exit(result.status ?? 1);
