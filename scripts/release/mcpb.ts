/**
 * The MCP Bundle of one target, zipfs-<version>-<target>.mcpb: a zip holding manifest.json (MCPB manifest 0.3,
 * https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md), the zipfs binary, the README and the licence.
 * Claude Desktop installs it with a double click, asks for the folders zipfs may work in (`user_config`), and starts
 * `zipfs mcp --root <folder>...` from the folder it unpacked the bundle into.
 */
import fs from 'node:fs';
import path from 'node:path';
import { type ZipOptions, zipSync } from 'fflate';
import { COMMANDS, MCP_TOOL_PREFIX } from '../../src/table/registry.ts';
import { REPOSITORY } from './server-json.ts';

export const MCPB_MANIFEST_VERSION = '0.3';
/** The user_config key of the folder list; its values become the arguments after `--root`. */
export const ROOTS_KEY = 'allowed_directories';

export interface BundleTarget {
  /** `linux-x64`, `darwin-arm64`, `windows-x64`, ... */
  target: string;
  /** What Node calls the platform: linux, darwin or win32. */
  os: 'linux' | 'darwin' | 'win32';
}

export function mcpbFileName(version: string, target: string): string {
  return `zipfs-${version}-${target}.mcpb`;
}

/** The manifest of one target's bundle: one platform, its binary at the bundle's top. */
export function mcpbManifest(
  { target, os }: BundleTarget,
  pkg: { version: string; description: string },
): Record<string, unknown> {
  const binary = os === 'win32' ? 'zipfs.exe' : 'zipfs';
  return {
    manifest_version: MCPB_MANIFEST_VERSION,
    name: 'zipfs',
    display_name: 'zipfs',
    version: pkg.version,
    description: pkg.description,
    long_description:
      'zipfs opens a zip (or a jar, docx, xlsx, epub, wheel...) as a workspace folder, lets the agent list, read, ' +
      'search and change its files, and syncs the changes back into the archive with a three-way merge and a backup. ' +
      'It works only on zips inside the folders you choose here.',
    author: { name: 'zipfs contributors', url: REPOSITORY },
    repository: { type: 'git', url: REPOSITORY },
    homepage: REPOSITORY,
    documentation: `${REPOSITORY}#readme`,
    support: `${REPOSITORY}/issues`,
    license: 'MIT',
    keywords: ['zip', 'archive', 'jar', 'docx', 'files'],
    server: {
      type: 'binary',
      entry_point: binary,
      mcp_config: {
        command: `\${__dirname}/${binary}`,
        // A list value stands for as many arguments as it has folders: `--root A B` for two.
        args: ['mcp', '--root', `\${user_config.${ROOTS_KEY}}`],
        env: {},
      },
    },
    tools: COMMANDS.map((command) => ({ name: `${MCP_TOOL_PREFIX}${command.name}`, description: command.title })),
    compatibility: { platforms: [os] },
    user_config: {
      [ROOTS_KEY]: {
        type: 'directory',
        title: 'Folders with zips',
        description:
          'zipfs opens, creates and syncs zips only inside these folders (and their subfolders), and keeps its ' +
          'backups beside them. Add a folder to let it work there.',
        multiple: true,
        required: true,
      },
    },
  };
}

/** Writes the bundle into `out` and returns its path; the binary keeps its executable bit (Unix attributes). */
export function writeMcpb(
  bundle: BundleTarget & { version: string; description: string; binary: string; docs: string[]; out: string },
): string {
  const manifest = mcpbManifest(bundle, bundle);
  const entry = (manifest.server as { entry_point: string }).entry_point;
  const file = (data: Uint8Array, mode: number): [Uint8Array, ZipOptions] => [
    data,
    { os: 3, attrs: ((0o100000 | mode) << 16) >>> 0 },
  ];
  const files: Record<string, [Uint8Array, ZipOptions]> = {
    'manifest.json': file(new TextEncoder().encode(`${JSON.stringify(manifest, null, 2)}\n`), 0o644),
    [entry]: file(new Uint8Array(fs.readFileSync(bundle.binary)), 0o755),
  };
  for (const doc of bundle.docs) files[path.basename(doc)] = file(new Uint8Array(fs.readFileSync(doc)), 0o644);
  const target = path.join(bundle.out, mcpbFileName(bundle.version, bundle.target));
  fs.writeFileSync(target, zipSync(files, { level: 6 }));
  return target;
}
