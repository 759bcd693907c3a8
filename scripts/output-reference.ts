#!/usr/bin/env bun
/**
 * Writes the README's JSON reference (every command's result fields, from the
 * output schemas and src/cli/output-docs.ts) between its markers:
 *   bun scripts/output-reference.ts
 * tests/output-docs.test.ts fails when the README's copy differs, naming this script.
 */
import fs from 'node:fs';
import path from 'node:path';
import { readmeWithReference } from '../src/cli/output-reference-block.ts';

const readme = path.resolve(import.meta.dir, '..', 'README.md');
fs.writeFileSync(readme, readmeWithReference(fs.readFileSync(readme, 'utf8')));
console.log('README.md: JSON reference regenerated');
