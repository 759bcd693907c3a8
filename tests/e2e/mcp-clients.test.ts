/**
 * zipfs mcp under clients nobody here wrote: the official Python SDK (a venv
 * in .cache/py that .ci/run sets up), the MCP Inspector's CLI, and ajv
 * compiling every schema in strict mode. Each is skipped, saying why, when it
 * is not installed.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import Ajv from 'ajv';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip } from '../helpers/raw-zip.ts';
import { TEST_ROOTS, connect } from '../helpers/mcp-client.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { COMMANDS } from '../../src/table/registry.ts';

const root = path.resolve(import.meta.dir, '../..');
const python = path.join(root, '.cache', 'py', 'bin', 'python');
const hasPythonSdk = fs.existsSync(python) && Bun.spawnSync([python, '-c', 'import mcp']).exitCode === 0;
const inspector = path.join(root, 'node_modules', '.bin', 'mcp-inspector');
const hasInspector = fs.existsSync(inspector) && Bun.which('node') !== null;

let box: ReturnType<typeof sandbox>;
beforeEach(() => (box = sandbox()));
afterEach(() => box.cleanup());

const whyNoSdk = hasPythonSdk
  ? ''
  : ' (skipped: no .cache/py with mcp; .ci/run sets it up: python3 -m venv .cache/py && .cache/py/bin/pip install mcp)';
describe.skipIf(!hasPythonSdk)(`the Python SDK${whyNoSdk}`, () => {
  it('runs a workflow: progress, 10 parallel writes, a cancelled grep and a cancelled open, sync, errors', () => {
    const small = writeZip(box.dir, 'reports.zip', reportsZip());
    // 30,000 files take a second or more to create, so the cancel comes while extraction runs.
    const large = writeZip(
      box.dir,
      'large.zip',
      rawZip(Array.from({ length: 30_000 }, (_, i) => ({ name: `d${i % 50}/f${i}.txt`, data: `file ${i}\n` }))),
    );
    const run = Bun.spawnSync(
      [python, path.join(import.meta.dir, 'clients', 'python_workflow.py'), BINARY, box.home, small, large],
      { timeout: 90_000 },
    );
    expect(run.exitCode).toBe(0);
    const seen = JSON.parse(run.stdout.toString().trim().split('\n').at(-1)!);
    expect(seen.protocol).toBe('2025-11-25');
    expect(seen.tools).toBe(COMMANDS.length);
    expect(seen.opened.file_count).toBe(6);
    expect(seen.parallel_errors).toStrictEqual([]);
    expect(seen.status_added).toStrictEqual([
      'parallel/',
      ...Array.from({ length: 10 }, (_, i) => `parallel/${i}.txt`).sort(),
    ]); // with its folder entry
    // The cancelled grep's worker is gone: the server idles instead of backtracking for 30 s. A
    // backtracking worker burns a whole core (1.0 s of CPU in the 1 s measured); the bound leaves room
    // for a loaded machine (0.54 s was seen with two suites running at once, never above).
    expect(seen.cpu_after_cancelled_grep).toBeLessThan(0.7);
    expect(seen.sessions_after_cancelled_open).toStrictEqual(['reports']);
    expect(seen.workspaces_after_cancelled_open).toStrictEqual(['reports']);
    expect(seen.synced).toMatchObject({ synced: true, files_added: 12 });
    expect(seen.progress.length).toBeGreaterThan(0);
    expect(seen.error).toMatchObject({
      is_error: true,
      structured: null,
      text: { error: { code: 'PATH_NOT_FOUND' } },
    });
    expect(seen.closed).toStrictEqual({ closed: true, synced: false, name: 'reports' });
  }, 120_000);
});

describe.skipIf(!hasInspector)(
  `the MCP Inspector ` +
    `CLI${hasInspector ? '' : ' (skipped: node_modules/.bin/mcp-inspector or node is missing; bun install adds it)'}`,
  () => {
    const inspect = (args: string[]) => {
      const result = Bun.spawnSync([inspector, '--cli', BINARY, 'mcp', ...args], {
        env: { ...process.env, ZIPFS_HOME: box.home, ...TEST_ROOTS },
        timeout: 60_000,
      });
      if (result.exitCode !== 0) throw new Error(`inspector failed: ${result.stderr.toString()}`);
      return JSON.parse(result.stdout.toString());
    };

    it('lists the tools', () => {
      const { tools } = inspect(['--method', 'tools/list']);
      expect(tools.map((t: { name: string }) => t.name)).toContain('zipfs_read');
      expect(tools).toHaveLength(COMMANDS.length);
    }, 60_000);

    it('reads a large file in pages within the answer bound (100,000 characters), and the pages add up to the ' +
      'file', () => {
      const content = Buffer.from('0123456789abcdef'.repeat(16 * 1024)); // 256 KiB of text: a handful of pages
      box.run(['open', writeZip(box.dir, 'big.zip', rawZip([{ name: 'big.txt', data: content }]))]);
      const pages: string[] = [];
      let offset: number | undefined = 0;
      for (let guard = 0; guard < 20 && offset !== undefined; guard++) {
        const result = inspect([
          '--method',
          'tools/call',
          '--tool-name',
          'zipfs_read',
          '--tool-arg',
          'path=big.txt',
          '--tool-arg',
          `offset=${offset}`,
          '--tool-arg',
          `limit=${content.length}`,
        ]);
        expect(JSON.stringify(result).length).toBeLessThanOrEqual(100_000);
        const page = result.structuredContent;
        expect(page.encoding).toBe('utf-8');
        expect(page.bytes_read).toBeLessThan(content.length); // cut to fit the answer bound
        pages.push(page.content);
        offset = page.next_offset;
      }
      expect(pages.length).toBeGreaterThan(1);
      expect(pages.join('')).toBe(content.toString());
    }, 120_000);
  },
);

describe('schemas as function-calling APIs take them', () => {
  // Gemini's function declarations need one `type` on every schema node (an enum without one fails the
  // whole request), and clients that pass MCP schemas through unchanged (the Google GenAI SDK's
  // mcpToTool hands inputSchema over as parametersJsonSchema) leave the check to the API: made here.
  it('gives every node of every input and output schema exactly one type, and no anyOf beside it', async () => {
    const mcp = await connect(box.home);
    try {
      const { tools } = await mcp.client.listTools();
      const faults: string[] = [];
      const visit = (node: any, at: string) => {
        // A nullable value, anyOf [T, null], is the one union Gemini takes (it becomes `nullable: true`).
        const nullable =
          Array.isArray(node.anyOf) && node.anyOf.length === 2 && node.anyOf.some((n: any) => n.type === 'null');
        if (nullable)
          return visit(
            node.anyOf.find((n: any) => n.type !== 'null'),
            `${at}?`,
          );
        if (typeof node.type !== 'string') faults.push(`${at}: type ${JSON.stringify(node.type)}`);
        if (node.anyOf && node.type) faults.push(`${at}: type and anyOf`);
        for (const [key, child] of Object.entries(node.properties ?? {})) visit(child, `${at}.${key}`);
        if (node.items) visit(node.items, `${at}[]`);
      };
      for (const tool of tools) {
        visit(tool.inputSchema, `${tool.name} input`);
        visit(tool.outputSchema, `${tool.name} output`);
      }
      expect(faults).toStrictEqual([]);
    } finally {
      await mcp.close();
    }
  });
});

describe('schemas in ajv strict mode', () => {
  it('every input and output schema compiles strictly, and results validate against them', async () => {
    const mcp = await connect(box.home);
    try {
      const { tools } = await mcp.client.listTools();
      const ajv = new Ajv({ strict: true, allErrors: true });
      const validators = new Map(
        tools.map((tool) => [
          tool.name,
          { input: ajv.compile(tool.inputSchema), output: ajv.compile(tool.outputSchema!) },
        ]),
      );
      expect(validators.size).toBe(COMMANDS.length);
      const zip = writeZip(box.dir, 'reports.zip', reportsZip());
      for (const [name, args] of [
        ['zipfs_open', { path: zip }],
        ['zipfs_ls', { recursive: true }],
        ['zipfs_read', { path: 'README.txt', offset: 2 }],
        ['zipfs_status', {}],
        ['zipfs_sessions', {}],
        ['zipfs_grep', { pattern: 'id', context_lines: 1 }],
      ] as const) {
        expect(validators.get(name)!.input(args)).toBe(true);
        const result = await mcp.client.callTool({ name, arguments: args });
        const valid = validators.get(name)!.output(result.structuredContent);
        expect(valid ? [] : validators.get(name)!.output.errors).toStrictEqual([]);
      }
      expect(validators.get('zipfs_read')!.input({ path: 1 })).toBe(false);
      expect(validators.get('zipfs_edit')!.input({ path: 'x', edits: [] })).toBe(false); // at least one edit
    } finally {
      await mcp.close();
    }
  });
});
