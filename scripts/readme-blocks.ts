#!/usr/bin/env bun
/**
 * Writes README.md's generated blocks (the command table, settings, exit codes
 * and the JSON reference) from the code, between their markers:
 *   bun scripts/readme-blocks.ts
 * tests/readme.test.ts fails when a block is out of date, naming this script.
 */
import fs from 'node:fs';
import path from 'node:path';
import { BLOCKS, withBlocks } from './readme/blocks.ts';

const readme = path.resolve(import.meta.dir, '..', 'README.md');
fs.writeFileSync(readme, withBlocks(fs.readFileSync(readme, 'utf8')));
console.log(`README.md: ${Object.keys(BLOCKS).join(', ')} regenerated`);
