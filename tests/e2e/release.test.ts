/**
 * The npm route, as a user meets it: the release's packages installed from
 * their tarballs into an empty prefix with no network, then the installed
 * `zipfs` command run, as a CLI and as an MCP server. Built for this machine's
 * target only (all five build with `npm run release`).
 */
import { afterAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pkg from '../../package.json' with { type: 'json' };
import { needs } from '../helpers/tools.ts';

const root = path.resolve(import.meta.dir, '../..');
const hostTarget = process.platform === 'linux' && process.arch === 'x64' ? 'linux-x64' : undefined;
const borrowed = needs('npm', 'tar');
const prefix = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-install-'));
afterAll(() => fs.rmSync(prefix, { recursive: true, force: true }));

describe.skipIf(borrowed.skip || !hostTarget)(
  `release packages${hostTarget ? borrowed.why : ' (skipped: the test installs the linux-x64 package)'}`,
  () => {
    it('build an archive, a checksum list and npm packages that install offline and run as zipfs and as an MCP ' +
      'server', async () => {
      const built = Bun.spawnSync([process.execPath, 'scripts/release.ts', '--target', hostTarget!], {
        cwd: root,
        stderr: 'pipe',
      });
      expect(built.exitCode).toBe(0);
      const release = path.join(root, 'dist', 'release');
      const archive = `zipfs-${pkg.version}-${hostTarget}.tar.gz`;
      const sums = fs.readFileSync(path.join(release, 'SHA256SUMS'), 'utf8');
      expect(sums).toContain(`  ${archive}\n`);
      const check = Bun.spawnSync(['sha256sum', '--check', 'SHA256SUMS'], { cwd: release });
      expect(check.exitCode).toBe(0);
      const listed = Bun.spawnSync(['tar', '-tzf', path.join(release, archive)])
        .stdout.toString()
        .trim()
        .split('\n')
        .sort();
      expect(listed).toStrictEqual(
        [
          `zipfs-${pkg.version}-${hostTarget}/`,
          `zipfs-${pkg.version}-${hostTarget}/LICENSE`,
          `zipfs-${pkg.version}-${hostTarget}/README.md`,
          `zipfs-${pkg.version}-${hostTarget}/zipfs`,
        ].sort(),
      );

      const tarballs = [`npm/zipfs-${hostTarget}-${pkg.version}.tgz`, `npm/zipfs-${pkg.version}.tgz`].map((f) =>
        path.join(release, f),
      );
      const install = Bun.spawnSync(
        [
          'npm',
          'install',
          '--offline',
          '--no-audit',
          '--no-fund',
          '--loglevel=error',
          '--prefix',
          prefix,
          '--cache',
          path.join(prefix, '.npm-cache'),
          ...tarballs,
        ],
        { stderr: 'pipe' },
      );
      expect(install.exitCode, install.stderr.toString()).toBe(0);
      const installed = path.join(prefix, 'node_modules', '.bin', 'zipfs');
      expect(
        JSON.parse(fs.readFileSync(path.join(prefix, 'node_modules', 'zipfs', 'package.json'), 'utf8')),
      ).toMatchObject({ name: 'zipfs', bin: { zipfs: 'bin/zipfs.js' }, license: 'MIT' });
      expect(Bun.spawnSync([installed, '--version']).stdout.toString().trim()).toBe(pkg.version);
      const status = Bun.spawnSync([installed, 'status'], {
        env: { ...process.env, ZIPFS_HOME: path.join(prefix, 'home') },
      });
      expect(status.exitCode).toBe(5); // NO_SESSIONS: the exit code comes through the launcher

      const mcp = Bun.spawn([installed, 'mcp'], {
        stdin: 'pipe',
        stdout: 'pipe',
        stderr: 'ignore',
        env: { ...process.env, ZIPFS_HOME: path.join(prefix, 'home') },
      });
      mcp.stdin.write(
        JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'test', version: '0' } },
        }) + '\n',
      );
      await mcp.stdin.flush();
      const reader = mcp.stdout.getReader();
      const { value } = await reader.read();
      const answer = JSON.parse(new TextDecoder().decode(value).split('\n')[0]!);
      expect(answer.result.serverInfo).toMatchObject({ name: 'zipfs', version: pkg.version });
      mcp.stdin.end();
      expect(await mcp.exited).toBe(0);
    }, 180_000);
  },
);
