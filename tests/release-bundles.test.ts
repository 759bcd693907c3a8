/**
 * The bundle of every release target, not only this machine's (tests/e2e/mcpb.test.ts runs that one): the release
 * script's bundle writer given a small stand-in for each target's binary (a cross build takes minutes), each bundle
 * unpacked by unzip and held to the MCPB rules, and server.json listing each with its hash.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { type BundleTarget, writeMcpb } from '../scripts/release/mcpb.ts';
import { serverJson } from '../scripts/release/server-json.ts';
import { bundleProblems } from './helpers/mcpb.ts';
import { needs } from './helpers/tools.ts';

const TARGETS: BundleTarget[] = [
  { target: 'linux-x64', os: 'linux' },
  { target: 'linux-arm64', os: 'linux' },
  { target: 'darwin-x64', os: 'darwin' },
  { target: 'darwin-arm64', os: 'darwin' },
  { target: 'windows-x64', os: 'win32' },
];
const borrowed = needs('unzip');
const box = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-bundles-'));
afterAll(() => fs.rmSync(box, { recursive: true, force: true }));

describe.skipIf(borrowed.skip)(`the MCP Bundle of every target${borrowed.why}`, () => {
  const pkg = { version: '1.2.3', description: 'zipfs for the test' };
  const binary = path.join(box, 'stand-in');
  fs.writeFileSync(binary, '#!/bin/sh\necho stand-in\n');
  const bundles = TARGETS.map((target) =>
    writeMcpb({ ...target, ...pkg, binary, docs: [path.resolve(import.meta.dir, '../LICENSE')], out: box }),
  );

  it.each(TARGETS.map((target, i) => [target.target, target, bundles[i]!] as const))(
    '%s: unpacks into a bundle that follows the rules, for its own platform only',
    (_name, target, bundle) => {
      const dir = path.join(box, target.target);
      const unzip = Bun.spawnSync(['unzip', '-q', bundle, '-d', dir], { stderr: 'pipe' });
      expect(unzip.exitCode, unzip.stderr.toString()).toBe(0);
      const { manifest, problems } = bundleProblems(dir);
      expect(problems).toStrictEqual([]);
      const exe = target.os === 'win32' ? 'zipfs.exe' : 'zipfs';
      expect(path.basename(bundle)).toBe(`zipfs-1.2.3-${target.target}.mcpb`);
      expect(manifest!.compatibility!.platforms).toStrictEqual([target.os]);
      expect(manifest!.server.entry_point).toBe(exe);
      expect(manifest!.server.mcp_config.command).toBe(`\${__dirname}/${exe}`);
      expect(fs.readFileSync(path.join(dir, exe), 'utf8')).toBe(fs.readFileSync(binary, 'utf8'));
    },
  );

  it('lists each bundle in server.json under its release URL and SHA-256', () => {
    const server = serverJson(pkg, bundles) as { packages: Record<string, string>[] };
    const listed = server.packages.filter((p) => p.registryType === 'mcpb');
    expect(listed.map((p) => p.identifier)).toStrictEqual(
      TARGETS.map((t) => `https://github.com/zipfs/zipfs/releases/download/v1.2.3/zipfs-1.2.3-${t.target}.mcpb`),
    );
    for (const [i, p] of listed.entries())
      expect(p.fileSha256).toBe(new Bun.CryptoHasher('sha256').update(fs.readFileSync(bundles[i]!)).digest('hex'));
  });

  it('names what breaks the rules: a binary that is not executable, a list inside an argument', () => {
    const dir = path.join(box, 'broken');
    expect(Bun.spawnSync(['unzip', '-q', bundles[0]!, '-d', dir]).exitCode).toBe(0);
    fs.chmodSync(path.join(dir, 'zipfs'), 0o644);
    expect(bundleProblems(dir).problems).toStrictEqual(['entry_point zipfs is not executable']);
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    manifest.server.mcp_config.args = ['mcp', '--root=${user_config.allowed_directories}'];
    manifest.user_config.allowed_directories.sensitive = true;
    fs.writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify(manifest));
    fs.chmodSync(path.join(dir, 'zipfs'), 0o755);
    expect(bundleProblems(dir).problems).toStrictEqual([
      'user_config.allowed_directories: only strings are sensitive',
      '${user_config.allowed_directories} is a list: it can only be a whole item of args',
    ]);
  });
});
