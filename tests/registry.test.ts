import { describe, expect, it } from 'bun:test';
import { toJsonSchema } from '@valibot/to-json-schema';
import fs from 'node:fs';
import path from 'node:path';
import { commandArgs, kebab } from '../src/cli/args.ts';
import { renderHelp } from '../src/cli/run.ts';
import { toolDefinition } from '../src/mcp/tools.ts';
import { COMMANDS, MCP_TOOL_PREFIX } from '../src/table/registry.ts';

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
        .filter((key) => kebab(key) in args || key.toUpperCase() in args || command.cli.viaOptions?.includes(key))
        .sort();
      expect(cliParams).toStrictEqual(mcpParams);
      expect(args.json?.type).toBe('boolean');
    },
  );

  // Every tools/list costs an agent context: the whole list has a budget (no tool has its own, so
  // a tool can spend what its clarity needs), and tools/list over MCP is checked in e2e/paging.test.ts.
  // 20,000 for 17 tools; 21,000 since the 18th (extract) and lazy sessions' parameters, about 5,200 tokens.
  it('keeps tools/list under 21,000 bytes, with every parameter and output field described', () => {
    const definitions = COMMANDS.map(toolDefinition);
    expect(Buffer.byteLength(JSON.stringify({ tools: definitions }))).toBeLessThan(21_000);
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
      expect(JSON.stringify(tool.outputSchema)).not.toContain('"error"'); // results only: errors are isError text blocks
    }
    expect(undescribed).toStrictEqual([]);
  });

  it('every command has end-to-end tests on both surfaces', () => {
    const e2e = path.resolve(import.meta.dir, 'e2e');
    const text = fs
      .readdirSync(e2e)
      .filter((f) => f.endsWith('.ts'))
      .map((f) => fs.readFileSync(path.join(e2e, f), 'utf8'))
      .join('\n');
    for (const command of COMMANDS) {
      expect(text).toContain(`'${MCP_TOOL_PREFIX}${command.name}'`);
      expect(text).toMatch(new RegExp(`box\\.run\\(\\['${command.name}'`));
    }
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
