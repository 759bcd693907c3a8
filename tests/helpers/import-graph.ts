/**
 * The imports of src/, read as text: every `import ... from '...'`, `export ... from '...'`,
 * `import('...')` and `require('...')` with a relative specifier, resolved to a file below src/. Type-only
 * imports count too: a type in the wrong layer ties the layers as much as a value does.
 */
import fs from 'node:fs';
import path from 'node:path';

export type Graph = Map<string, Set<string>>;

// Four forms, one capture group each: import/export ... from '…', a dynamic import('…'), a bare import '…', and
// require('…') (table/command-loader.ts loads a command's module so).
const SPECIFIER = new RegExp(
  [
    /(?:^|[\s;])(?:import|export)\b[^'";]*?\bfrom\s*['"]([^'"]+)['"]/,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/,
    /^import\s+['"]([^'"]+)['"]/,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/,
  ]
    .map((part) => part.source)
    .join('|'),
  'gm',
);

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const at = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(at);
    return entry.name.endsWith('.ts') ? [at] : [];
  });
}

/** src-relative path (`sync/sync-archive.ts`) -> the src files it imports. */
export function importGraph(srcDir: string): Graph {
  const graph: Graph = new Map();
  for (const file of sourceFiles(srcDir)) {
    const from = path.relative(srcDir, file).split(path.sep).join('/');
    const targets = new Set<string>();
    const text = fs.readFileSync(file, 'utf8');
    for (const match of text.matchAll(SPECIFIER)) {
      const specifier = match[1] ?? match[2] ?? match[3] ?? match[4]!;
      if (!specifier.startsWith('.')) continue;
      const target = path
        .relative(srcDir, path.resolve(path.dirname(file), specifier))
        .split(path.sep)
        .join('/');
      if (!target.startsWith('..')) targets.add(target);
    }
    graph.set(from, targets);
  }
  return graph;
}

/** The folder (or loose file) a src path belongs to: `sync/x.ts` -> `sync`, `main.ts` -> `main.ts`. */
export function placeOf(file: string): string {
  const slash = file.indexOf('/');
  return slash < 0 ? file : file.slice(0, slash);
}

/** Strongly connected components of more than one file (or a file importing itself): the circles. */
export function circles(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, counter);
    low.set(node, counter);
    counter++;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node)!, index.get(next)!));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.has(node)) found.push(component.sort());
    }
  };
  for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
  return found;
}

/**
 * Imports that run against the layer order: `layers` lists the layers from the top down, each
 * a list of places (folders, or loose files of src/); a file may import its own layer or any
 * below it, never one above.
 */
export function upwardImports(graph: Graph, layers: readonly (readonly string[])[]): { from: string; to: string }[] {
  const rank = new Map<string, number>();
  layers.forEach((places, i) => {
    for (const place of places) rank.set(place, i);
  });
  const wrong: { from: string; to: string }[] = [];
  for (const [from, targets] of graph) {
    for (const to of targets) {
      const a = rank.get(placeOf(from));
      const b = rank.get(placeOf(to));
      if (a === undefined || b === undefined || b < a) wrong.push({ from, to });
    }
  }
  return wrong;
}
