/**
 * server.json for the official MCP Registry (schema 2025-12-11,
 * https://github.com/modelcontextprotocol/registry/tree/main/docs/reference/server-json): the npm package, which the
 * registry proves ours by the `mcpName` in its package.json, and each MCP Bundle of the release, by its download URL
 * on the GitHub release and its SHA-256 (clients check the download against it before they install).
 */
import fs from 'node:fs';
import path from 'node:path';

export const REPOSITORY = 'https://github.com/zipfs/zipfs';
/** The registry name, io.github.<owner>/<name>: the owner as GitHub spells it (the namespace is case-sensitive). */
export const MCP_NAME = 'io.github.zipfs/zipfs';
export const SERVER_SCHEMA = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

export function sha256(file: string): string {
  return new Bun.CryptoHasher('sha256').update(fs.readFileSync(file)).digest('hex');
}

/** Where a release's file is downloaded from: its GitHub release, tagged v<version>. */
export function releaseUrl(version: string, file: string): string {
  return `${REPOSITORY}/releases/download/v${version}/${path.basename(file)}`;
}

export function serverJson(
  pkg: { version: string; description: string },
  bundles: readonly string[],
): Record<string, unknown> {
  const stdio = { type: 'stdio' };
  return {
    $schema: SERVER_SCHEMA,
    name: MCP_NAME,
    title: 'zipfs',
    description: pkg.description,
    repository: { url: REPOSITORY, source: 'github' },
    websiteUrl: `${REPOSITORY}#readme`,
    version: pkg.version,
    packages: [
      {
        registryType: 'npm',
        registryBaseUrl: 'https://registry.npmjs.org',
        identifier: 'zipfs',
        version: pkg.version,
        runtimeHint: 'npx',
        transport: stdio,
        packageArguments: [
          { type: 'positional', value: 'mcp', description: 'Serve MCP on stdio' },
          {
            type: 'named',
            name: '--root',
            description: 'A folder zipfs may open, create and sync zips in (and its subfolders); repeat it for more',
            isRequired: false,
            isRepeated: true,
            format: 'filepath',
          },
        ],
      },
      ...bundles.map((bundle) => ({
        registryType: 'mcpb',
        identifier: releaseUrl(pkg.version, bundle),
        version: pkg.version,
        fileSha256: sha256(bundle),
        transport: stdio,
      })),
    ],
  };
}
