/**
 * The two Workspace implementations (src/workspace/), in process, on real zips opened as
 * zipfs opens them: an eager session has every entry in its folder, a lazy one keeps them
 * in the zip until a change needs them. Each answers the same questions through the same
 * interface, and the base it gives is every entry, whatever the kind.
 */
import { afterAll, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ZipfsError } from '../../src/base/errors.ts';
import { withBeneath } from '../../src/files/beneath.ts';
import { openArchive } from '../../src/open/open-archive.ts';
import { loadLimits } from '../../src/rules/limits.ts';
import type { Session } from '../../src/session/session-store.ts';
import { diffWorkspace } from '../../src/sync/workspace-diff.ts';
import { workspaceOf } from '../../src/workspace/session-workspace.ts';
import type { Workspace } from '../../src/workspace/workspace.ts';
import { REPORT_FILES, reportsZip } from '../helpers/fixtures.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-workspace-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

const limits = loadLimits({});
/** The entries of reportsZip(): files, and the folder entries fflate writes. */
const FILES = [
  'README.txt',
  'data/archive/2024.csv',
  'data/config.json',
  'data/input.csv',
  'data/output.csv',
  'logo.png',
];
let count = 0;

async function opened(lazy: boolean): Promise<{ session: Session; home: string; workspace: Workspace }> {
  const dir = path.join(scratch, `case-${++count}`);
  fs.mkdirSync(dir, { recursive: true });
  const zipPath = path.join(dir, 'reports.zip');
  fs.writeFileSync(zipPath, reportsZip());
  const home = path.join(dir, 'home');
  const session = await openArchive({ zipPath, home, limits, lazy });
  return { session, home, workspace: workspaceOf(session) };
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    return error instanceof ZipfsError ? error.code : String(error);
  }
}

const stat = (workspace: Workspace, input: string) =>
  withBeneath(workspace.root, (beneath) => workspace.stat(beneath, input));

describe('an eager workspace', () => {
  let subject: Awaited<ReturnType<typeof opened>>;
  beforeEach(async () => {
    subject = await opened(false);
  });

  it('sees every entry on disk and nothing only in the archive', async () => {
    const { workspace } = subject;
    const seen = stat(workspace, 'data/config.json');
    expect(seen.disk?.stats.isFile()).toBe(true);
    expect(seen.archived).toBeUndefined();
    expect(codeOf(() => stat(workspace, 'nowhere.txt'))).toBe('PATH_NOT_FOUND');
    expect(workspace.archivedChildren('').size).toBe(0);
    expect(workspace.notExtracted()).toBeUndefined();
    expect(
      await workspace.withGrepItems(
        '',
        () => true,
        limits,
        async (items) => items,
      ),
    ).toBeUndefined();
  });

  it('needs nothing prepared for a change, removes nothing from the archive, extracts nothing', async () => {
    const { workspace, home } = subject;
    await workspace.prepareChange(['README.txt'], { home, limits });
    workspace.prepareFolderOf('data/new.txt');
    expect(workspace.removeArchived('data', true)).toBe(0);
    expect(await workspace.extract(undefined, { home, limits })).toStrictEqual({
      extracted: 0,
      bytes: 0,
      not_extracted: 0,
    });
    expect(fs.readFileSync(path.join(workspace.root, 'README.txt'), 'utf8')).toBe(REPORT_FILES['README.txt']);
  });

  it('gives a base of every entry, all compared, none untouched', () => {
    const base = subject.workspace.base();
    const compared = base.compared(new Map());
    expect(compared.length).toBe(base.count);
    expect(base.whole()).toStrictEqual(compared);
    expect(base.onDisk(compared)).toBeUndefined();
    const untouched: string[] = [];
    base.forEachUntouched(compared, (relative) => untouched.push(relative));
    expect(untouched).toStrictEqual([]);
    expect(
      compared
        .filter((entry) => entry.type !== 'dir')
        .map((entry) => entry.path)
        .sort(),
    ).toStrictEqual(FILES);
    expect([base.limitsOn, base.copiesChecked, base.forceable]).toStrictEqual(['archive', 'all', true]);
  });
});

describe('a lazy workspace', () => {
  let subject: Awaited<ReturnType<typeof opened>>;
  beforeEach(async () => {
    subject = await opened(true);
  });

  it('sees the entries only in the zip, with the sizes it records, and reads them from there', async () => {
    const { workspace } = subject;
    const seen = stat(workspace, 'data/config.json');
    expect(seen.disk).toBeUndefined();
    expect(seen.archived).toMatchObject({ type: 'file', size: REPORT_FILES['data/config.json'].length });
    expect(stat(workspace, 'data').archived?.type).toBe('dir');
    expect(codeOf(() => stat(workspace, 'nowhere.txt'))).toBe('PATH_NOT_FOUND');
    expect([...workspace.archivedChildren('data').keys()].sort()).toStrictEqual([
      'archive',
      'config.json',
      'input.csv',
      'output.csv',
    ]);
    const file = await workspace.fileFor(seen.archived!, limits);
    expect(fs.readFileSync(file, 'utf8')).toBe(REPORT_FILES['data/config.json']);
    expect(file.startsWith(workspace.root)).toBe(false); // never in the folder status scans
    expect(workspace.notExtracted()).toBeGreaterThanOrEqual(FILES.length);
  });

  it('gives grep the files at and below a path that the filter takes, read through one descriptor', async () => {
    const { workspace } = subject;
    const items = await workspace.withGrepItems(
      'data',
      (relative) => relative.endsWith('.csv'),
      limits,
      async (found) => found?.map((item) => item.file).sort(),
    );
    expect(items).toStrictEqual(['data/archive/2024.csv', 'data/input.csv', 'data/output.csv']);
  });

  it('extracts an entry for a change, and nowhere else', async () => {
    const { workspace, home } = subject;
    const before = workspace.notExtracted()!;
    await workspace.prepareChange(['data/input.csv'], { home, limits });
    expect(fs.readFileSync(path.join(workspace.root, 'data/input.csv'), 'utf8')).toBe(REPORT_FILES['data/input.csv']);
    expect(stat(workspace, 'data/input.csv').disk?.stats.isFile()).toBe(true);
    expect(workspace.notExtracted()).toBe(before - 1);
    // Reading does not extract.
    await workspace.fileFor(stat(workspace, 'README.txt').archived!, limits);
    expect(fs.existsSync(path.join(workspace.root, 'README.txt'))).toBe(false);
  });

  it('makes the folder of a new file when that folder is only in the zip', () => {
    const { workspace } = subject;
    workspace.prepareFolderOf('data/archive/new.csv');
    expect(fs.statSync(path.join(workspace.root, 'data/archive')).isDirectory()).toBe(true);
    expect(fs.existsSync(path.join(workspace.root, 'data/archive/2024.csv'))).toBe(false);
  });

  it('removes entries only in the zip: a folder needs recursive, and the diff then sees them deleted', () => {
    const { workspace } = subject;
    expect(codeOf(() => workspace.removeArchived('data', false))).toBe('INVALID_INPUT');
    expect(workspace.removeArchived('data', true)).toBeGreaterThanOrEqual(5);
    expect(codeOf(() => stat(workspace, 'data/input.csv'))).toBe('PATH_NOT_FOUND');
    const diff = diffWorkspace(workspace.root, workspace.base());
    expect(diff.deleted).toContain('data/input.csv');
    expect(diff.deleted).not.toContain('README.txt');
  });

  it('extracts what paths and globs name, and says how many are left', async () => {
    const { workspace, home } = subject;
    const done = await workspace.extract(['*.csv'], { home, limits });
    expect(done.extracted).toBe(3);
    expect(done.not_extracted).toBe(workspace.notExtracted()!);
    await expect(workspace.extract(['nothing-*.xml'], { home, limits })).rejects.toMatchObject({
      code: 'PATH_NOT_FOUND',
    });
  });

  it('gives a base of every entry: those extracted compared, the rest untouched, copied raw', async () => {
    const { workspace, home } = subject;
    await workspace.prepareChange(['data/input.csv'], { home, limits });
    const base = workspace.base();
    const compared = base.compared(new Map());
    expect(compared.map((entry) => entry.path)).toStrictEqual(['data/input.csv']);
    const untouched: string[] = [];
    base.forEachUntouched(compared, (relative) => untouched.push(relative));
    expect(untouched.length + compared.length).toBe(base.count);
    expect(base.whole().length).toBe(base.count);
    expect(base.onDisk(compared)).toStrictEqual({
      indexes: new Set([compared[0]!.index]),
      paths: new Set(['data/input.csv']),
    });
    expect([base.limitsOn, base.copiesChecked, base.forceable]).toStrictEqual(['extracted', 'extracted', false]);
    expect(codeOf(() => base.assertForceable('x.zip'))).toBe('CONFLICT_DETECTED');
  });

  it('compares a file a tool wrote at an entry path with that entry, without changing the manifest', () => {
    const { workspace, session } = subject;
    fs.writeFileSync(path.join(workspace.root, 'README.txt'), REPORT_FILES['README.txt']);
    fs.mkdirSync(path.join(workspace.root, 'data'));
    fs.writeFileSync(path.join(workspace.root, 'data/output.csv'), 'changed\n');
    const manifestBefore = fs.readFileSync(session.manifest);
    const base = workspace.base();
    const diff = diffWorkspace(workspace.root, base);
    expect(diff.modified).toStrictEqual(['data/output.csv']);
    expect(diff.added).toStrictEqual([]);
    // The folder made on the way is its entry's too.
    expect(diff.entries.map((entry) => entry.path)).toStrictEqual(['README.txt', 'data', 'data/output.csv']);
    expect(diff.unchangedCount).toBe(base.count - 1);
    expect(fs.readFileSync(session.manifest)).toStrictEqual(manifestBefore);
    // The base itself is read, never rewritten: asked again, it compares the same.
    expect(base.compared(new Map()).length).toBe(0);
  });
});
