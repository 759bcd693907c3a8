/**
 * The release's MCP Bundle and server.json, as their consumers meet them (issue 33, points 3 and 4): the release
 * script run for this machine's target with the binary the preload built (no cross builds here), the bundle
 * unpacked by Info-ZIP unzip, its manifest held to the MCPB rules (tests/helpers/mcpb.ts), and the server started
 * the way Claude Desktop starts it from the manifest (its command and arguments with the folders the user chose),
 * driven by the SDK's Client; server.json's hashes checked with sha256sum against the archives it lists.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { strToU8, zipSync } from 'fflate';
import pkg from '../../package.json' with { type: 'json' };
import { BINARY } from '../helpers/ensure-binary.ts';
import { bundleProblems, launchConfig, type Manifest } from '../helpers/mcpb.ts';
import { needs } from '../helpers/tools.ts';

const root = path.resolve(import.meta.dir, '../..');
const hostTarget = process.platform === 'linux' && process.arch === 'x64' ? 'linux-x64' : undefined;
const borrowed = needs('unzip', 'sha256sum', 'tar', 'npm');
const box = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-mcpb-'));
const release = path.join(box, 'release');
const bundleFile = path.join(release, `zipfs-${pkg.version}-${hostTarget}.mcpb`);
afterAll(() => fs.rmSync(box, { recursive: true, force: true }));

/** Whether `zipfs mcp` takes these arguments: it answers EOF on stdin with exit 0, and a usage error with 2. */
function mcpAccepts(args: string[]): boolean {
  return Bun.spawnSync([BINARY, 'mcp', ...args], { stdin: 'ignore', env: { ...process.env, ZIPFS_HOME: box } }).success;
}

describe.skipIf(borrowed.skip || !hostTarget)(
  `the MCP Bundle and server.json${hostTarget ? borrowed.why : ' (skipped: the test bundles the linux-x64 binary)'}`,
  () => {
    beforeAll(() => {
      const made = Bun.spawnSync(
        [process.execPath, 'scripts/release.ts', '--target', hostTarget!, '--binary', BINARY, '--out', release],
        { cwd: root, stdout: 'ignore', stderr: 'pipe' },
      );
      if (!made.success) throw new Error(`scripts/release.ts failed: ${made.stderr.toString()}`);
    }, 120_000);

    let manifest: Manifest;
    const unpacked = path.join(box, 'Claude Extensions', 'zipfs');

    it('unpacks with unzip into a manifest that follows the MCPB rules, its binary executable beside it', () => {
      fs.mkdirSync(unpacked, { recursive: true });
      const unzip = Bun.spawnSync(['unzip', '-q', bundleFile, '-d', unpacked], { stderr: 'pipe' });
      expect(unzip.exitCode, unzip.stderr.toString()).toBe(0);
      expect(fs.readdirSync(unpacked).sort()).toStrictEqual(['LICENSE', 'README.md', 'manifest.json', 'zipfs']);
      const checked = bundleProblems(unpacked);
      expect(checked.problems).toStrictEqual([]);
      manifest = checked.manifest!;
      expect(manifest).toMatchObject({
        name: 'zipfs',
        version: pkg.version,
        server: { type: 'binary', entry_point: 'zipfs' },
        compatibility: { platforms: ['linux'] },
        user_config: { allowed_directories: { type: 'directory', multiple: true, required: true } },
      });
      expect(manifest.server.mcp_config.args).toStrictEqual(['mcp', '--root', '${user_config.allowed_directories}']);
      expect(
        Bun.spawnSync([path.join(unpacked, 'zipfs'), '--version'])
          .stdout.toString()
          .trim(),
      ).toBe(pkg.version);
    });

    it("starts as Claude Desktop would, lists the manifest's tools, opens a zip in a chosen folder", async () => {
      const folders = [path.join(box, 'Documents'), path.join(box, 'Projects')];
      for (const folder of folders) fs.mkdirSync(folder, { recursive: true });
      const zip = path.join(folders[1]!, 'notes.zip');
      fs.writeFileSync(zip, zipSync({ 'todo.txt': strToU8('ship the bundle\n') }));

      // The host hands the folder list over as `--root A B`. Until `zipfs mcp --root` exists (issue 33's roots,
      // built beside this), start it with no folders; once it does, the list form must be taken too.
      let userConfig: Record<string, string[]> = { allowed_directories: folders };
      let chosen = manifest;
      if (!mcpAccepts(['--root', folders[0]!])) {
        console.warn('zipfs mcp takes no --root yet: starting the bundle without the chosen folders');
        const args = manifest.server.mcp_config.args!.filter((arg) => !arg.includes('allowed_directories'));
        chosen = { ...manifest, server: { ...manifest.server, mcp_config: { ...manifest.server.mcp_config, args } } };
        chosen = { ...chosen, user_config: {} };
        userConfig = {};
      } else
        expect(mcpAccepts(['--root', ...folders]), 'zipfs mcp must take `--root A B` (a host expands a list so)').toBe(
          true,
        );
      const launch = launchConfig(chosen, { dirname: unpacked, platform: 'linux', userConfig, home: box });
      expect(launch.command).toBe(path.join(unpacked, 'zipfs'));
      if (userConfig.allowed_directories) expect(launch.args).toStrictEqual(['mcp', '--root', ...folders]);

      const transport = new StdioClientTransport({
        command: launch.command,
        args: launch.args,
        env: { PATH: process.env.PATH ?? '', HOME: box, ZIPFS_HOME: path.join(box, 'zipfs-home'), ...launch.env },
        cwd: '/',
        stderr: 'pipe',
      });
      const client = new Client({ name: 'claude-desktop-like', version: '1.0.0' });
      await client.connect(transport);
      try {
        expect(client.getServerVersion()).toMatchObject({ name: 'zipfs', version: pkg.version });
        const tools = (await client.listTools()).tools.map((tool) => tool.name).sort();
        expect(tools).toStrictEqual(manifest.tools!.map((tool) => tool.name).sort());
        const opened = await client.callTool({ name: 'zipfs_open', arguments: { path: zip } });
        expect(opened.isError, JSON.stringify(opened.content)).toBeFalsy();
        expect(opened.structuredContent).toMatchObject({ file_count: 1 });
        const read = await client.callTool({ name: 'zipfs_read', arguments: { path: 'todo.txt' } });
        expect(JSON.stringify(read.structuredContent)).toContain('ship the bundle');
        const closed = await client.callTool({ name: 'zipfs_close', arguments: {} });
        expect(closed.isError, JSON.stringify(closed.content)).toBeFalsy();
      } finally {
        await client.close();
      }
    }, 60_000);

    it("writes a server.json whose bundle hashes are the archives' and whose name is the npm package's mcpName", () => {
      const server = JSON.parse(fs.readFileSync(path.join(release, 'server.json'), 'utf8'));
      expect(server.$schema).toMatch(/^https:\/\/static\.modelcontextprotocol\.io\/schemas\/\d{4}-\d{2}-\d{2}\//);
      expect(server.name).toMatch(/^io\.github\.[A-Za-z0-9-]+\/[a-zA-Z0-9._-]+$/);
      expect(server.description.length).toBeLessThanOrEqual(100);
      expect(server.version).toBe(pkg.version);
      const npm = server.packages.filter((p: { registryType: string }) => p.registryType === 'npm');
      expect(npm).toMatchObject([{ identifier: 'zipfs', version: pkg.version, transport: { type: 'stdio' } }]);
      expect(npm[0].packageArguments[0]).toStrictEqual({
        type: 'positional',
        value: 'mcp',
        description: expect.any(String),
      });

      const bundles = server.packages.filter((p: { registryType: string }) => p.registryType === 'mcpb');
      expect(bundles.map((b: { identifier: string }) => path.basename(b.identifier))).toStrictEqual([
        path.basename(bundleFile),
      ]);
      for (const bundle of bundles) {
        expect(bundle.identifier).toBe(
          `https://github.com/zipfs/zipfs/releases/download/v${pkg.version}/${path.basename(bundle.identifier)}`,
        );
        expect(bundle.transport).toStrictEqual({ type: 'stdio' });
        const file = path.join(release, path.basename(bundle.identifier));
        const hashed = Bun.spawnSync(['sha256sum', file]).stdout.toString().split(' ')[0];
        expect(bundle.fileSha256).toBe(hashed);
      }
      // The npm package the registry looks in for the proof: the launcher's package.json, read from its tarball.
      const tarball = path.join(release, 'npm', `zipfs-${pkg.version}.tgz`);
      const launcher = JSON.parse(Bun.spawnSync(['tar', '-xzOf', tarball, 'package/package.json']).stdout.toString());
      expect(launcher).toMatchObject({ name: 'zipfs', version: pkg.version, mcpName: server.name });
    });
  },
);
