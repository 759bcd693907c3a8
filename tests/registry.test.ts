import { describe, expect, it } from 'bun:test';
import { toJsonSchema } from '@valibot/to-json-schema';
import fs from 'node:fs';
import path from 'node:path';
import { commandArgs, flagOf } from '../src/cli/args.ts';
import { renderHelp } from '../src/cli/run.ts';
import { toolDefinition } from '../src/mcp/tools.ts';
import { COMMANDS, MCP_TOOL_PREFIX, findCommand } from '../src/table/registry.ts';
import { COMMAND_WORDS, commandNamed } from '../src/table/command-loader.ts';
import { e2eSources, uncovered } from './helpers/e2e-coverage.ts';

describe('the dispatch table', () => {
  it('has unique names, one file per command in src/commands', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(new Set(names).size).toBe(names.length);
    const files = fs
      .readdirSync(path.resolve(import.meta.dir, '../src/commands'))
      .filter((f) => f !== 'schemas.ts')
      .map((f) => f.replace(/\.ts$/, ''));
    expect(files.sort()).toStrictEqual([...names].sort());
  });

  it('loads each command alone by the words the table gives it (command-loader.ts), and no other word', () => {
    const words = COMMANDS.flatMap((c) => [c.name, ...(c.cli.aliases ?? [])]);
    expect([...COMMAND_WORDS].sort()).toStrictEqual([...words].sort());
    for (const word of words) expect(commandNamed(word)).toBe(findCommand(word)!);
    for (const word of ['nope', 'toString', '__proto__', 'constructor']) expect(commandNamed(word)).toBeUndefined();
  });

  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    '%s converts to JSON Schema and has complete metadata',
    (_name, command) => {
      expect(() => toJsonSchema(command.input)).not.toThrow();
      expect(() => toJsonSchema(command.output)).not.toThrow();
      expect(command.description.length).toBeGreaterThan(15);
      expect(command.annotations.openWorldHint).toBe(false);
      expect(command.cli.example.startsWith('zipfs ') || command.cli.example.includes('zipfs ')).toBe(true);
      for (const key of command.cli.positionals ?? []) expect(Object.keys(command.input.entries)).toContain(key);
      for (const key of Object.keys(command.cli.short ?? {})) expect(Object.keys(command.input.entries)).toContain(key);
    },
  );

  it.each(COMMANDS.map((c) => [c.name, c] as const))(
    '%s has the same parameters on the CLI and over MCP',
    (_name, command) => {
      const tool = toolDefinition(command);
      expect(tool.name).toBe(`${MCP_TOOL_PREFIX}${command.name}`);
      const mcpParams = Object.keys((tool.inputSchema as { properties: object }).properties).sort();
      const args = commandArgs(command);
      const cliParams = Object.keys(command.input.entries)
        .filter(
          (key) => flagOf(command, key) in args || key.toUpperCase() in args || command.cli.viaOptions?.includes(key),
        )
        .sort();
      expect(cliParams).toStrictEqual(mcpParams);
      expect(args.json?.type).toBe('boolean');
    },
  );

  // Every tools/list costs an agent context: the whole list has a budget (no tool has its own, so
  // a tool can spend what its clarity needs), and tools/list over MCP is checked in e2e/paging.test.ts.
  // 20,000 for 17 tools; 21,000 since the 18th (extract) and lazy sessions' parameters; 30,000 (about 7,500
  // tokens) since restore, several paths per call and descriptions that teach (issue 31: one-word descriptions
  // cost agents more wrong calls than the tokens they saved).
  it('keeps tools/list under 30,000 bytes, with every parameter and output field described', () => {
    const definitions = COMMANDS.map(toolDefinition);
    expect(Buffer.byteLength(JSON.stringify({ tools: definitions }))).toBeLessThan(30_000);
    const undescribed: string[] = [];
    const visit = (schema: any, at: string) => {
      for (const [key, property] of Object.entries<any>(schema.properties ?? {})) {
        if (!property.description) undescribed.push(`${at}.${key}`);
        visit(property, `${at}.${key}`);
        if (property.items) visit(property.items, `${at}.${key}[]`);
      }
    };
    for (const tool of definitions) {
      visit(tool.inputSchema, `${tool.name} input`);
      visit(tool.outputSchema, `${tool.name} output`);
      expect(JSON.stringify(tool.outputSchema)).not.toContain('"number"'); // counts and sizes are integers
      // results only: errors are isError text blocks
      expect(JSON.stringify(tool.outputSchema)).not.toContain('"error"');
    }
    expect(undescribed).toStrictEqual([]);
  });

  // Invoked, not mentioned: the command run through dist/zipfs (box.run, runZipfs, spawn of BINARY) and its
  // zipfs_NAME tool called over `zipfs mcp` (e2e-coverage.ts says which call forms count).
  it('every command is invoked by name in an end-to-end test, on the CLI and over MCP', () => {
    const names = COMMANDS.map((c) => c.name);
    expect(uncovered(names, e2eSources(), MCP_TOOL_PREFIX)).toStrictEqual({ cli: [], mcp: [] });
  });

  it('that check fails for a command added to the table without end-to-end tests', () => {
    const names = [...COMMANDS.map((c) => c.name), 'zz-extra'];
    expect(uncovered(names, e2eSources(), MCP_TOOL_PREFIX)).toStrictEqual({ cli: ['zz-extra'], mcp: ['zz-extra'] });
  });

  it('counts calls only: a name in a comment, a list or a message is not a test of it', () => {
    const mentions = [
      "// box.run(['zz-extra']) and call(client, 'zipfs_zz-extra')",
      "/* Bun.spawn([BINARY, 'zz-extra']) */",
      "expect(tools).toContain('zipfs_zz-extra'); expect(help).toContain('zz-extra');",
      "const names = ['zz-extra', 'zipfs_zz-extra'];",
    ];
    expect(uncovered(['zz-extra'], mentions, MCP_TOOL_PREFIX)).toStrictEqual({ cli: ['zz-extra'], mcp: ['zz-extra'] });
    const calls = [
      "box.run(['zz-extra', 'a.txt', '--json'])",
      "await call(mcp.client, 'zipfs_zz-extra', { path: 'a.txt' })",
    ];
    expect(uncovered(['zz-extra'], calls, MCP_TOOL_PREFIX)).toStrictEqual({ cli: [], mcp: [] });
    // Each surface on its own: a CLI test does not stand for an MCP one, nor the reverse.
    expect(uncovered(['zz-extra'], [calls[0]!], MCP_TOOL_PREFIX)).toStrictEqual({ cli: [], mcp: ['zz-extra'] });
    expect(uncovered(['zz-extra'], [calls[1]!], MCP_TOOL_PREFIX)).toStrictEqual({ cli: ['zz-extra'], mcp: [] });
  });

  it('generates the help from the table: a new row shows up without other edits', async () => {
    const help = await renderHelp('0.0.0');
    for (const command of COMMANDS) expect(help).toContain(command.name);
    const extra = { ...COMMANDS[0]!, name: 'zz-extra', description: 'An extra row for this test.' };
    (COMMANDS as unknown as object[]).push(extra);
    try {
      expect(await renderHelp('0.0.0')).toContain('zz-extra');
    } finally {
      (COMMANDS as unknown as object[]).pop();
    }
  });
});
