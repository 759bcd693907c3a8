#!/usr/bin/env bun
/**
 * Release artefacts, into dist/release/:
 * - zipfs-<version>-<target>.tar.gz (zip for Windows): the binary, README and LICENSE;
 * - zipfs-<version>-<target>.mcpb: the MCP Bundle Claude Desktop installs (scripts/release/mcpb.ts);
 * - npm/: one package per target (@zipfs/<target>, with `os` and `cpu` so npm
 *   installs only the matching one) and the `zipfs` package, whose `bin` is a
 *   small Node launcher that runs the binary of the platform package npm
 *   installed from its optionalDependencies (the pattern of esbuild and biome),
 *   so `npx -y zipfs mcp` works once they are published; each packed with npm pack;
 * - install-release.sh, which installs an archive after checking it against SHA256SUMS (CI
 *   jobs and the GitHub Action in .github/actions/setup-zipfs run it);
 * - server.json for the MCP Registry: the npm package and the bundles with their SHA-256
 *   (scripts/release/server-json.ts); the launcher's package.json carries its name as `mcpName`;
 * - SHA256SUMS over all of them.
 *   npm run release                          every target
 *   npm run release -- --target linux-x64    some (the test builds one)
 *   --binary PATH   the one target's binary, already built (the tests pass dist/zipfs), instead of building it
 *   --out DIR       write there instead of dist/release
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { zipSync } from 'fflate';
import pkg from '../package.json' with { type: 'json' };
import { writeMcpb } from './release/mcpb.ts';
import { MCP_NAME, serverJson } from './release/server-json.ts';

const TARGETS = {
  'linux-x64': { os: 'linux', cpu: 'x64' },
  'linux-arm64': { os: 'linux', cpu: 'arm64' },
  'darwin-x64': { os: 'darwin', cpu: 'x64' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'windows-x64': { os: 'win32', cpu: 'x64' },
} as const;
type Target = keyof typeof TARGETS;

const root = path.resolve(import.meta.dir, '..');
const { values } = parseArgs({
  options: { target: { type: 'string', multiple: true }, binary: { type: 'string' }, out: { type: 'string' } },
});
const out = values.out ? path.resolve(values.out) : path.join(root, 'dist', 'release');
const targets = (values.target ?? Object.keys(TARGETS)) as Target[];
for (const target of targets)
  if (!(target in TARGETS)) throw new Error(`unknown target ${target}; targets: ${Object.keys(TARGETS).join(', ')}`);
if (values.binary && targets.length !== 1) throw new Error('--binary is the binary of one target: give one --target');
// The registry refuses a longer description (server.json's schema: at most 100 characters).
if (pkg.description.length > 100) throw new Error(`package.json's description is over 100 characters`);

const version = pkg.version;
const scope = '@zipfs';
const exe = (target: Target) => (target.startsWith('windows') ? '.exe' : '');
const common = { version, description: pkg.description, license: 'MIT', repository: 'https://github.com/zipfs/zipfs' };

function run(command: string[], cwd = root): string {
  const result = Bun.spawnSync(command, { cwd, stderr: 'inherit' });
  if (result.exitCode !== 0) throw new Error(`${command.join(' ')} failed (exit ${result.exitCode})`);
  return result.stdout.toString();
}

/** npm pack into `into`; returns the tarball's path. */
function pack(dir: string, into: string): string {
  const name = run(['npm', 'pack', '--silent', '--pack-destination', into], dir).trim().split('\n').at(-1)!;
  return path.join(into, name);
}

// The folder is emptied first: a folder given with --out only when it is empty or an earlier release's.
if (values.out && fs.existsSync(out) && fs.readdirSync(out).length > 0 && !fs.existsSync(path.join(out, 'SHA256SUMS')))
  throw new Error(`--out ${values.out} holds files that are not a release's; give an empty or new folder`);
fs.rmSync(out, { recursive: true, force: true });
const npmDir = path.join(out, 'npm');
fs.mkdirSync(npmDir, { recursive: true });
const made: string[] = [];
const bundles: string[] = [];

for (const target of targets) {
  const binary = values.binary ? path.resolve(values.binary) : path.join(root, 'dist', `zipfs-${target}${exe(target)}`);
  if (!values.binary) run([process.execPath, 'scripts/build.ts', '--target', target]);

  // The archive people download: the binary as `zipfs`, with the README and the licence.
  const base = `zipfs-${version}-${target}`;
  const stage = path.join(out, base);
  fs.mkdirSync(stage);
  fs.copyFileSync(binary, path.join(stage, `zipfs${exe(target)}`));
  fs.chmodSync(path.join(stage, `zipfs${exe(target)}`), 0o755);
  for (const doc of ['README.md', 'LICENSE']) fs.copyFileSync(path.join(root, doc), path.join(stage, doc));
  if (target.startsWith('windows')) {
    const files = Object.fromEntries(
      fs.readdirSync(stage).map((name) => [`${base}/${name}`, new Uint8Array(fs.readFileSync(path.join(stage, name)))]),
    );
    fs.writeFileSync(path.join(out, `${base}.zip`), zipSync(files, { level: 6 }));
    made.push(path.join(out, `${base}.zip`));
  } else {
    run(['tar', '-czf', path.join(out, `${base}.tar.gz`), '-C', out, base]);
    made.push(path.join(out, `${base}.tar.gz`));
  }
  fs.rmSync(stage, { recursive: true });

  // The MCP Bundle: the same binary with a manifest that says how to start it and which folders to ask for.
  const docs = ['README.md', 'LICENSE'].map((doc) => path.join(root, doc));
  const bundle = { target, os: TARGETS[target].os, version, description: pkg.description, binary, docs, out };
  bundles.push(writeMcpb(bundle));
  made.push(bundles.at(-1)!);

  // The platform package: only npm installs whose os and cpu match.
  const platformDir = path.join(npmDir, `zipfs-${target}`);
  fs.mkdirSync(path.join(platformDir, 'bin'), { recursive: true });
  fs.copyFileSync(binary, path.join(platformDir, 'bin', `zipfs${exe(target)}`));
  fs.chmodSync(path.join(platformDir, 'bin', `zipfs${exe(target)}`), 0o755);
  fs.copyFileSync(path.join(root, 'LICENSE'), path.join(platformDir, 'LICENSE'));
  const { os, cpu } = TARGETS[target];
  fs.writeFileSync(
    path.join(platformDir, 'package.json'),
    JSON.stringify(
      {
        name: `${scope}/${target}`,
        ...common,
        description: `The zipfs binary for ${os} ${cpu}; install zipfs, not this`,
        os: [os],
        cpu: [cpu],
        files: ['bin', 'LICENSE'],
        preferUnplugged: true,
      },
      null,
      2,
    ) + '\n',
  );
  made.push(pack(platformDir, npmDir));
}

// The package people install: a launcher, and every platform package as an optional dependency.
const mainDir = path.join(npmDir, 'zipfs');
fs.mkdirSync(path.join(mainDir, 'bin'), { recursive: true });
fs.copyFileSync(path.join(import.meta.dir, 'release', 'launcher.js'), path.join(mainDir, 'bin', 'zipfs.js'));
fs.chmodSync(path.join(mainDir, 'bin', 'zipfs.js'), 0o755);
for (const doc of ['README.md', 'LICENSE']) fs.copyFileSync(path.join(root, doc), path.join(mainDir, doc));
const optionalDependencies = Object.fromEntries(Object.keys(TARGETS).map((target) => [`${scope}/${target}`, version]));
fs.writeFileSync(
  path.join(mainDir, 'package.json'),
  JSON.stringify(
    {
      name: 'zipfs',
      ...common,
      // The MCP Registry's proof that this package is the server it lists (server.json's name).
      mcpName: MCP_NAME,
      bin: { zipfs: 'bin/zipfs.js' },
      files: ['bin', 'README.md', 'LICENSE'],
      engines: { node: '>=18' },
      optionalDependencies,
    },
    null,
    2,
  ) + '\n',
);
made.push(pack(mainDir, npmDir));

// The installer, its default version this release's, so a copy fetched from the release installs that release.
const installer = fs.readFileSync(path.join(import.meta.dir, 'install-release.sh'), 'utf8');
if (!/ZIPFS_VERSION:-[^}]+}/.test(installer))
  throw new Error('scripts/install-release.sh has no ${ZIPFS_VERSION:-...} default to set');
fs.writeFileSync(
  path.join(out, 'install-release.sh'),
  installer.replace(/ZIPFS_VERSION:-[^}]+}/, `ZIPFS_VERSION:-${version}}`),
  { mode: 0o755 },
);
made.push(path.join(out, 'install-release.sh'));

// server.json for the MCP Registry, from this release's version and bundles.
fs.writeFileSync(path.join(out, 'server.json'), `${JSON.stringify(serverJson(pkg, bundles), null, 2)}\n`);
made.push(path.join(out, 'server.json'));

const sums = made.map(
  (file) =>
    `${new Bun.CryptoHasher('sha256').update(fs.readFileSync(file)).digest('hex')}  ${path.relative(out, file)}`,
);
fs.writeFileSync(path.join(out, 'SHA256SUMS'), `${sums.join('\n')}\n`);
for (const file of made)
  console.log(`${(fs.statSync(file).size / 2 ** 20).toFixed(1).padStart(7)} MiB  ${path.relative(root, file)}`);
console.log(`             ${path.relative(root, path.join(out, 'SHA256SUMS'))}`);
