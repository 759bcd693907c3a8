/**
 * The README a newcomer reads (issue 29, point 8) stays true and short: its tables of facts are
 * the ones the code gives now (bun scripts/readme-blocks.ts rewrites them), every link and anchor
 * in it and in the READMEs it sends readers to resolves, the sections `zipfs help MODE` names
 * exist, and it stays under its size budget.
 */
import { describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { MODE_HELP } from '../src/cli/mode-help.ts';
import { REGENERATE, staleBlocks } from '../scripts/readme/blocks.ts';

const root = path.resolve(import.meta.dir, '..');
const README = path.join(root, 'README.md');
const DOCS = [README, path.join(root, 'tests', 'README.md'), path.join(root, 'scripts', 'bench', 'README.md')];
// 40,000 when the README was cut from 98 KB to generated tables; 44,000 since issue 31 (restore, numbered
// backups, line merges, several paths per call, grep cursors, sessions by connection): each a few lines.
// 52,000 since issues 32-34 (passwords asked, code pages, other methods, roots and bundles, remote stores).
const BUDGET = 52_000;

/** The text outside fenced code blocks and inline code, where links and headings live. */
function prose(markdown: string): string {
  return markdown.replace(/^```[\s\S]*?^```$/gm, '').replace(/`[^`\n]*`/g, '');
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens; repeats get -1, -2. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const [, heading] of prose(markdown).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = heading!
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    out.add(count === 0 ? base : `${base}-${count}`);
  }
  return out;
}

/** Headings as written, for the sections other text names ("In CI"). */
function headings(markdown: string): string[] {
  return [...prose(markdown).matchAll(/^#{1,6} (.+)$/gm)].map(([, heading]) => heading!.trim());
}

/** Every link target that does not resolve in `file`: a missing file, or an anchor no heading gives. */
function brokenLinks(file: string): string[] {
  const markdown = fs.readFileSync(file, 'utf8');
  const broken: string[] = [];
  for (const [, target] of prose(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (/^[a-z]+:/i.test(target!)) continue; // https:, mailto:: not checked offline
    const [where, anchor] = target!.split('#') as [string, string | undefined];
    const linked = where === '' ? file : path.resolve(path.dirname(file), where);
    if (!fs.existsSync(linked)) {
      broken.push(`${target}: no such file`);
      continue;
    }
    if (anchor !== undefined && !anchors(fs.readFileSync(linked, 'utf8')).has(anchor))
      broken.push(`${target}: no such heading`);
  }
  return broken.map((link) => `${path.relative(root, file)}: ${link}`);
}

describe('the README', () => {
  const readme = fs.readFileSync(README, 'utf8');

  it(`holds the tables the code gives now (${REGENERATE} rewrites them)`, () => {
    expect({ stale: staleBlocks(readme), fix: `run ${REGENERATE}` }).toStrictEqual({
      stale: [],
      fix: `run ${REGENERATE}`,
    });
  });

  it(`stays under ${BUDGET.toLocaleString('en')} bytes`, () => {
    expect(Buffer.byteLength(readme)).toBeLessThan(BUDGET);
  });

  it('has links and anchors that resolve, and so do the READMEs it links to', () => {
    expect(DOCS.flatMap(brokenLinks)).toStrictEqual([]);
  });

  it('has the sections zipfs help MODE sends readers to', () => {
    const named = Object.values(MODE_HELP).flatMap((mode) =>
      mode.documented.startsWith('README.md')
        ? [...mode.documented.matchAll(/"([^"]+)"/g)].map(([, name]) => name!)
        : [],
    );
    expect(named.length).toBeGreaterThan(0);
    expect(named.filter((name) => !headings(readme).includes(name))).toStrictEqual([]);
  });

  it('finds a broken anchor and a missing file (the checks can fail)', () => {
    const scratch = path.join(root, '.cache', 'readme-test');
    fs.mkdirSync(scratch, { recursive: true });
    const file = path.join(scratch, 'x.md');
    fs.writeFileSync(file, '# A title\n\n[ok](#a-title) [gone](#nothing) [missing](none.md) `[code](#skipped)`\n');
    expect(brokenLinks(file)).toStrictEqual([
      '.cache/readme-test/x.md: #nothing: no such heading',
      '.cache/readme-test/x.md: none.md: no such file',
    ]);
    fs.rmSync(scratch, { recursive: true, force: true });
  });
});
