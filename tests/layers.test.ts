/**
 * The layers of src/, top to bottom, and the rule that they run one way: a file imports its own
 * layer or those below it, and no two files import each other, however far round. This list is
 * the project's layout (README, DESIGN.md): a new folder must be placed here to be imported at all.
 */
import { describe, expect, it } from 'bun:test';
import path from 'node:path';
import { circles, importGraph, placeOf, upwardImports } from './helpers/import-graph.ts';

export const LAYERS = [
  ['main.ts'], // entry: argv -> the CLI, or `mcp` -> the server
  ['cli', 'mcp'], // the two surfaces, built from the table (citty and the SDK live only here)
  ['table', 'commands'], // the dispatch table and its rows, one file per operation
  ['sync', 'open'], // writing a session back (merge included); making sessions
  ['workspace'], // one interface over a session's files, whatever kind of session
  ['session'], // the data folder: store, manifest, locks, owners, prune, source state
  ['search'], // grep over files and entries
  ['files'], // file operations confined to a workspace, encodings, diffs
  ['remote'], // archives on HTTP(S)/WebDAV: range reads into a local mirror, uploads with If-Match (zip: end records)
  ['zip'], // container bytes in and out, codecs
  ['rules'], // entry paths, platform rules, limits: what every layer above asks
  ['base'], // errors, settings, logging, process plumbing
  ['format'], // how numbers, names and diffs are shown
] as const;

const graph = importGraph(path.join(import.meta.dir, '..', 'src'));

describe('the layers of src/', () => {
  it('place every file of src/', () => {
    const placed = new Set(LAYERS.flat());
    expect([...graph.keys()].filter((file) => !placed.has(placeOf(file) as never))).toStrictEqual([]);
  });

  it('run one way: no import reaches a layer above its own', () => {
    expect(upwardImports(graph, LAYERS).map(({ from, to }) => `${from} -> ${to}`)).toStrictEqual([]);
  });

  it('have no circles', () => {
    expect(circles(graph).map((circle) => circle.join(' <-> '))).toStrictEqual([]);
  });

  it('can fail: a circle and an upward import are found when they exist', () => {
    const made = new Map([
      ['sync/a.ts', new Set(['session/b.ts'])],
      ['session/b.ts', new Set(['sync/a.ts'])],
    ]);
    expect(circles(made)).toStrictEqual([['session/b.ts', 'sync/a.ts']]);
    expect(upwardImports(made, LAYERS)).toStrictEqual([{ from: 'session/b.ts', to: 'sync/a.ts' }]);
  });
});
