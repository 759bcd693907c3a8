/**
 * The JSON contract's documentation (issue 24, point 5) cannot drift from the
 * schemas: every output field has a description in src/cli/output-docs.ts,
 * nothing there names a field the schemas lack, and the README's reference is
 * the one generated now.
 */
import { describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { OUTPUT_DOCS } from '../src/cli/output-docs.ts';
import { outputFields } from '../src/cli/output-fields.ts';
import { readmeWithReference } from '../src/cli/output-reference-block.ts';
import { COMMANDS } from '../src/table/registry.ts';

describe('the output field documentation', () => {
  it("describes every field of every command's result, and nothing else", () => {
    expect(Object.keys(OUTPUT_DOCS).sort()).toStrictEqual(COMMANDS.map((c) => c.name).sort());
    for (const command of COMMANDS) {
      const fields = outputFields(command).map((f) => f.path);
      expect({ command: command.name, fields: fields.sort() }).toStrictEqual({
        command: command.name,
        fields: Object.keys(OUTPUT_DOCS[command.name]!).sort(),
      });
      for (const field of outputFields(command)) expect(field.description.length).toBeGreaterThan(5);
    }
  });

  it('is in the README as generated now (bun scripts/output-reference.ts rewrites it)', () => {
    const readme = fs.readFileSync(path.resolve(import.meta.dir, '..', 'README.md'), 'utf8');
    expect(readme === readmeWithReference(readme)).toBe(true);
  });
});
