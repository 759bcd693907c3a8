/**
 * The JSON contract's documentation (issue 24, point 5) cannot drift from the
 * schemas: every output field has a description in src/cli/output-docs.ts, and
 * nothing there names a field the schemas lack. (The README's JSON reference is
 * generated from the same schemas: tests/readme.test.ts keeps it in step.)
 */
import { describe, expect, it } from 'bun:test';
import { OUTPUT_DOCS } from '../src/cli/output-docs.ts';
import { outputFields } from '../src/cli/output-fields.ts';
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
});
