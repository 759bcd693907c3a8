/**
 * The MCP Bundle rules the release's bundles are held to, written from the MCPB manifest spec 0.3
 * (https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md) rather than borrowed from its CLI, and the way
 * an MCPB host (Claude Desktop) turns a manifest into the command it starts: `${__dirname}` is the folder the bundle
 * was unpacked into, `${user_config.KEY}` the user's value (or the manifest's default), and an args item that is
 * exactly a list-valued `${user_config.KEY}` stands for as many arguments as the list has values.
 */
import fs from 'node:fs';
import path from 'node:path';
import * as v from 'valibot';

const PLATFORMS = ['darwin', 'win32', 'linux'] as const;
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/;

const serverConfig = {
  command: v.string(),
  args: v.optional(v.array(v.string())),
  env: v.optional(v.record(v.string(), v.string())),
};
const userConfigOption = v.strictObject({
  type: v.picklist(['string', 'number', 'boolean', 'directory', 'file']),
  title: v.pipe(v.string(), v.minLength(1)),
  description: v.pipe(v.string(), v.minLength(1)),
  required: v.optional(v.boolean()),
  default: v.optional(v.union([v.string(), v.number(), v.boolean(), v.array(v.string())])),
  multiple: v.optional(v.boolean()),
  sensitive: v.optional(v.boolean()),
  min: v.optional(v.number()),
  max: v.optional(v.number()),
});

export const ManifestSchema = v.strictObject({
  $schema: v.optional(v.string()),
  manifest_version: v.literal('0.3'),
  name: v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9._-]*$/)),
  display_name: v.optional(v.string()),
  version: v.pipe(v.string(), v.regex(SEMVER)),
  description: v.pipe(v.string(), v.minLength(1)),
  long_description: v.optional(v.string()),
  author: v.strictObject({
    name: v.string(),
    email: v.optional(v.pipe(v.string(), v.email())),
    url: v.optional(v.pipe(v.string(), v.url())),
  }),
  repository: v.optional(v.strictObject({ type: v.string(), url: v.pipe(v.string(), v.url()) })),
  homepage: v.optional(v.pipe(v.string(), v.url())),
  documentation: v.optional(v.pipe(v.string(), v.url())),
  support: v.optional(v.pipe(v.string(), v.url())),
  icon: v.optional(v.string()),
  server: v.strictObject({
    type: v.picklist(['python', 'node', 'binary']),
    entry_point: v.string(),
    mcp_config: v.strictObject({
      ...serverConfig,
      platform_overrides: v.optional(v.record(v.picklist(PLATFORMS), v.partial(v.strictObject(serverConfig)))),
    }),
  }),
  tools: v.optional(v.array(v.strictObject({ name: v.string(), description: v.optional(v.string()) }))),
  tools_generated: v.optional(v.boolean()),
  keywords: v.optional(v.array(v.string())),
  license: v.optional(v.string()),
  compatibility: v.optional(
    v.strictObject({
      claude_desktop: v.optional(v.string()),
      platforms: v.optional(v.array(v.picklist(PLATFORMS))),
      runtimes: v.optional(v.strictObject({ python: v.optional(v.string()), node: v.optional(v.string()) })),
    }),
  ),
  user_config: v.optional(v.record(v.pipe(v.string(), v.regex(/^[A-Za-z_][A-Za-z0-9_]*$/)), userConfigOption)),
});
export type Manifest = v.InferOutput<typeof ManifestSchema>;

/** Variables a host substitutes besides user_config ones. */
const HOST_VARIABLES = ['__dirname', 'HOME', 'DESKTOP', 'DOCUMENTS', 'DOWNLOADS', 'pathSeparator', '/'];

/**
 * Checks an unpacked bundle against the rules: the manifest's shape, and what the shape cannot say (the entry point
 * is in the bundle and, off Windows, executable; every variable is one a host knows; a list value fills whole
 * arguments; options fit their types). Returns the problems, none when the bundle is good.
 */
export function bundleProblems(dir: string): { manifest?: Manifest; problems: string[] } {
  const parsed = v.safeParse(ManifestSchema, JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8')));
  if (!parsed.success)
    return { problems: parsed.issues.map((issue) => `${v.getDotPath(issue) ?? '(top)'}: ${issue.message}`) };
  const manifest = parsed.output;
  const problems: string[] = [];
  const entry = path.join(dir, manifest.server.entry_point);
  const platforms = manifest.compatibility?.platforms ?? [];
  if (path.isAbsolute(manifest.server.entry_point) || !entry.startsWith(dir + path.sep))
    problems.push(`entry_point ${manifest.server.entry_point} is not inside the bundle`);
  else if (!fs.existsSync(entry)) problems.push(`entry_point ${manifest.server.entry_point} is not in the bundle`);
  else if (!platforms.includes('win32') && (fs.statSync(entry).mode & 0o111) === 0)
    problems.push(`entry_point ${manifest.server.entry_point} is not executable`);
  if (
    manifest.server.type === 'binary' &&
    manifest.server.mcp_config.command !== `\${__dirname}/${manifest.server.entry_point}`
  )
    problems.push('a binary server runs its entry point: mcp_config.command must be ${__dirname}/<entry_point>');
  if (platforms.length === 0 || new Set(platforms).size !== platforms.length)
    problems.push('compatibility.platforms must name each platform the bundle runs on, once');
  const options = manifest.user_config ?? {};
  for (const [key, option] of Object.entries(options)) {
    if (option.multiple && option.type !== 'directory' && option.type !== 'file')
      problems.push(`user_config.${key}: only directory and file options take multiple`);
    if (option.sensitive && option.type !== 'string') problems.push(`user_config.${key}: only strings are sensitive`);
    if ((option.min !== undefined || option.max !== undefined) && option.type !== 'number')
      problems.push(`user_config.${key}: only numbers take min and max`);
    if (Array.isArray(option.default) !== Boolean(option.multiple) && option.default !== undefined)
      problems.push(`user_config.${key}: a list default needs multiple, and multiple a list default`);
  }
  const config = manifest.server.mcp_config;
  const places: [string, string][] = [
    ['command', config.command],
    ...(config.args ?? []).map((arg): [string, string] => ['args', arg]),
    ...Object.values(config.env ?? {}).map((value): [string, string] => ['env', value]),
  ];
  for (const [where, text] of places)
    for (const [, name] of text.matchAll(/\$\{([^}]*)\}/g)) {
      const key = name!.startsWith('user_config.') ? name!.slice('user_config.'.length) : undefined;
      if (key === undefined ? !HOST_VARIABLES.includes(name!) : !(key in options))
        problems.push(`mcp_config names \${${name}}, which no host substitutes`);
      else if (key !== undefined && options[key]!.multiple && !(where === 'args' && text === `\${${name}}`))
        problems.push(`\${${name}} is a list: it can only be a whole item of args`);
    }
  const names = (manifest.tools ?? []).map((tool) => tool.name);
  if (new Set(names).size !== names.length) problems.push('tools lists a name twice');
  return { manifest, problems };
}

/** The command, arguments and environment a host starts from a manifest, as Claude Desktop does. */
export function launchConfig(
  manifest: Manifest,
  host: { dirname: string; platform: string; userConfig: Record<string, string | string[]>; home: string },
): { command: string; args: string[]; env: Record<string, string> } {
  const base = manifest.server.mcp_config;
  const override = base.platform_overrides?.[host.platform as (typeof PLATFORMS)[number]] ?? {};
  const variables: Record<string, string | string[]> = {
    __dirname: host.dirname,
    HOME: host.home,
    pathSeparator: path.sep,
    '/': path.sep,
  };
  for (const [key, option] of Object.entries(manifest.user_config ?? {})) {
    const value = host.userConfig[key] ?? option.default;
    if (value === undefined) {
      if (option.required) throw new Error(`user_config.${key} is required and has no value`);
      continue;
    }
    variables[`user_config.${key}`] = Array.isArray(value) ? value : String(value);
  }
  const text = (s: string) =>
    s.replace(/\$\{([^}]*)\}/g, (whole, name: string) => {
      const value = variables[name];
      return typeof value === 'string' ? value : whole;
    });
  const args = (override.args ?? base.args ?? []).flatMap((arg) => {
    const whole = /^\$\{(user_config\.[^}]+)\}$/.exec(arg);
    const value = whole ? variables[whole[1]!] : undefined;
    return Array.isArray(value) ? value : [text(arg)];
  });
  const env = Object.fromEntries(Object.entries(override.env ?? base.env ?? {}).map(([k, value]) => [k, text(value)]));
  return { command: text(override.command ?? base.command), args, env };
}
