import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { needs } from '../helpers/tools.ts';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/cli.ts';
import { infoZip, pythonRead, rawEntries } from '../helpers/zip-compare.ts';

const withPythonUnzipZipinfoZip = needs('python3', 'unzip', 'zipinfo', 'zip');

let box: ReturnType<typeof sandbox>;
beforeEach(() => (box = sandbox()));
afterEach(() => box.cleanup());

/** Builds an archive with Python's zipfile: `entries` is Python code run with `z` open for writing. */
function pythonZip(name: string, entries: string, comment = ''): string {
  const file = path.join(box.dir, name);
  const script =
    `import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:\n    ` +
    `z.comment = ${JSON.stringify(comment)}.encode()\n${entries
      .trim()
      .split('\n')
      .map((l) => `    ${l.trim()}`)
      .join('\n')}\n`;
  const result = Bun.spawnSync(['python3', '-c', script, file]);
  if (result.exitCode !== 0) throw new Error(result.stderr.toString());
  return file;
}

function manifestOf(session: string): { session: any; entries: any[] } {
  const [first, ...rest] = fs
    .readFileSync(path.join(box.home, 'workspaces', session, 'manifest.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  return { session: first, entries: rest };
}

/**
 * Sync describes the archive it wrote from what it wrote, without reading it
 * back: that description must be the one a fresh open of the archive makes.
 */
function expectManifestOfFreshOpen(zip: string, synced: string) {
  const fresh = box.run(['open', zip, '--name', 'fresh-check', '--json']).json;
  const strip = (entries: any[]) => entries.map(({ extracted, ...rest }) => rest);
  const after = manifestOf(synced);
  const reference = manifestOf(fresh.name);
  expect(strip(after.entries)).toStrictEqual(strip(reference.entries));
  for (const key of ['source', 'file_count', 'dir_count', 'extracted_size_bytes', 'symlinks'])
    expect(after.session[key], key).toStrictEqual(reference.session[key]);
  box.run(['close', 'fresh-check']);
}

/** Opens, lets `edit` change the workspace, syncs, and returns the archive before and after. */
function roundTrip(
  zip: string,
  edit: (root: string) => void,
): { before: ReturnType<typeof rawEntries>; after: ReturnType<typeof rawEntries>; sync: any } {
  const before = rawEntries(zip);
  const opened = box.run(['open', zip, '--json']).json;
  edit(opened.workspace_path);
  const sync = box.run(['sync', '--json']).json;
  expect(sync.synced).toBe(true);
  const after = rawEntries(zip);
  const verdict = infoZip(zip);
  expect(verdict.test).toBe(0);
  expectManifestOfFreshOpen(zip, opened.name);
  return { before, after, sync };
}

/** Every entry the edit did not touch must be byte-identical, but for its offset. */
function expectUnchangedCopied(
  before: ReturnType<typeof rawEntries>,
  after: ReturnType<typeof rawEntries>,
  changed: string[],
) {
  for (const [name, view] of before.entries) {
    if (changed.includes(name)) continue;
    const copy = after.entries.get(name);
    expect(copy, name).toBeDefined();
    expect(copy!.local.equals(view.local), `local header and data of ${name}`).toBe(true);
    expect(copy!.central.equals(view.central), `central record of ${name}`).toBe(true);
  }
}

describe.skipIf(withPythonUnzipZipinfoZip.skip)(`sync keeps archives faithful${withPythonUnzipZipinfoZip.why}`, () => {
  it("keeps an EPUB's stored mimetype first and unchanged when a chapter changes", () => {
    const zip = pythonZip(
      'book.epub',
      `
      z.writestr(zipfile.ZipInfo('mimetype'), 'application/epub+zip', zipfile.ZIP_STORED)
      z.writestr('META-INF/container.xml', '<container/>' * 20)
      z.writestr('OEBPS/content.opf', '<package/>' * 20)
      z.writestr('OEBPS/chapter1.xhtml', '<p>Once upon a time</p>' * 50)
    `,
    );
    const { before, after } = roundTrip(zip, (root) =>
      fs.appendFileSync(path.join(root, 'OEBPS/chapter1.xhtml'), '<p>The end</p>'),
    );
    expect(after.order).toStrictEqual(before.order);
    expect(after.entries.get('mimetype')!.entry.method).toBe(0);
    expect(after.entries.get('mimetype')!.entry.localHeaderOffset).toBe(0);
    expectUnchangedCopied(before, after, ['OEBPS/chapter1.xhtml']);
    const chapter = after.entries.get('OEBPS/chapter1.xhtml')!;
    expect(chapter.entry.method).toBe(8);
    expect(chapter.content.toString().endsWith('<p>The end</p>')).toBe(true);
    expect(pythonRead(zip).names).toStrictEqual(before.order);
  });

  it("keeps an Office document's order and stored/deflated methods", () => {
    const zip = pythonZip(
      'report.docx',
      `
      z.writestr('[Content_Types].xml', '<Types/>' * 30)
      z.writestr('_rels/.rels', '<Relationships/>' * 10)
      z.writestr(zipfile.ZipInfo('word/media/image1.png'), bytes(range(256)) * 4, zipfile.ZIP_STORED)
      z.writestr('word/document.xml', '<w:document>old</w:document>' * 40)
    `,
    );
    const { before, after } = roundTrip(zip, (root) =>
      fs.writeFileSync(path.join(root, 'word/document.xml'), '<w:document>new</w:document>'),
    );
    expect(after.order).toStrictEqual([
      '[Content_Types].xml',
      '_rels/.rels',
      'word/media/image1.png',
      'word/document.xml',
    ]);
    expectUnchangedCopied(before, after, ['word/document.xml']);
    expect(after.entries.get('word/document.xml')!.content.toString()).toBe('<w:document>new</w:document>');
  });

  it('keeps a modified stored entry stored, and entry and archive comments', () => {
    const zip = pythonZip(
      'commented.zip',
      `
      i = zipfile.ZipInfo('notes.txt', (2020, 1, 2, 3, 4, 6)); i.comment = b'entry comment'
      i.compress_type = zipfile.ZIP_STORED
      z.writestr(i, 'plain notes')
      j = zipfile.ZipInfo('other.txt'); j.comment = b'another comment'
      z.writestr(j, 'x' * 100)
    `,
      'the archive comment',
    );
    const { after } = roundTrip(zip, (root) => fs.writeFileSync(path.join(root, 'notes.txt'), 'edited notes'));
    expect(after.comment).toBe('the archive comment');
    const notes = after.entries.get('notes.txt')!.entry;
    expect([notes.method, notes.comment, notes.compressedSize]).toStrictEqual([0, 'entry comment', 12]);
    expect(after.entries.get('other.txt')!.entry.comment).toBe('another comment');
    expect(pythonRead(zip).comment).toBe('the archive comment');
  });

  it("keeps Unix modes and extended timestamps of Info-ZIP archives, updating only the edited entry's time", () => {
    const dir = path.join(box.dir, 'tree');
    fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(dir, 'bin/run.sh'), '#!/bin/sh\necho hi\n', { mode: 0o755 });
    fs.writeFileSync(path.join(dir, 'config.ini'), '[main]\nlevel=1\n', { mode: 0o640 });
    for (const f of ['bin/run.sh', 'config.ini'])
      fs.utimesSync(path.join(dir, f), new Date('2022-02-02T02:02:02Z'), new Date('2022-02-02T02:02:02Z'));
    const zip = path.join(box.dir, 'infozip.zip');
    expect(Bun.spawnSync(['zip', '-qr', zip, 'bin', 'config.ini'], { cwd: dir }).exitCode).toBe(0);
    const { before, after } = roundTrip(zip, (root) =>
      fs.writeFileSync(path.join(root, 'config.ini'), '[main]\nlevel=2\n'),
    );
    expectUnchangedCopied(before, after, ['config.ini']);
    const config = after.entries.get('config.ini')!.entry;
    expect(config.unixMode! & 0o777).toBe(0o640);
    expect(config.externalAttributes).toBe(before.entries.get('config.ini')!.entry.externalAttributes);
    expect(config.modifiedAt.getTime()).toBeGreaterThan(new Date('2025-01-01').getTime());
    expect(after.entries.get('bin/run.sh')!.entry.unixMode! & 0o777).toBe(0o755);
    expect(infoZip(zip).zipinfo).toMatch(/-rwxr-xr-x.*bin\/run\.sh/);
  });

  it('keeps a zip64 archive readable, with its zip64 records', () => {
    const zip = pythonZip(
      'zip64.zip',
      `
      with z.open('big.txt', 'w', force_zip64=True) as f: f.write(b'zip64 ' * 1000)
      z.writestr('small.txt', 'small')
    `,
    );
    const { before, after } = roundTrip(zip, (root) => fs.writeFileSync(path.join(root, 'small.txt'), 'smaller?'));
    expectUnchangedCopied(before, after, ['small.txt']);
    expect(pythonRead(zip).contents['big.txt']).toBe(Buffer.from('zip64 '.repeat(1000)).toString('hex'));
  });

  it('adds new files in path order after the originals, deflated or stored, with Unix modes', () => {
    const zip = pythonZip('base.zip', `z.writestr('b.txt', 'b')`);
    const { after, sync } = roundTrip(zip, (root) => {
      fs.mkdirSync(path.join(root, 'z-dir/empty'), { recursive: true });
      fs.writeFileSync(path.join(root, 'z-dir/text.txt'), 'compressible '.repeat(100));
      fs.writeFileSync(path.join(root, 'a.bin'), Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 37) & 0xff)));
      fs.writeFileSync(path.join(root, 'tool.sh'), 'echo\n', { mode: 0o755 });
      fs.writeFileSync(path.join(root, 'ünïcode.txt'), 'u');
    });
    expect(after.order).toStrictEqual(['b.txt', 'a.bin', 'tool.sh', 'z-dir/empty/', 'z-dir/text.txt', 'ünïcode.txt']);
    expect(sync).toMatchObject({ files_added: 5, files_modified: 0, files_deleted: 0 });
    expect(after.entries.get('z-dir/text.txt')!.entry.method).toBe(8);
    expect(after.entries.get('a.bin')!.entry.method).toBe(0);
    expect(after.entries.get('tool.sh')!.entry.unixMode! & 0o777).toBe(0o755);
    expect(after.entries.get('z-dir/empty/')!.entry.isDirectory).toBe(true);
    expect(pythonRead(zip).names).toContain('ünïcode.txt');
  });

  it('writes symlinks back as symlink entries, and stores links made by other tools as links', () => {
    const dir = path.join(box.dir, 'links');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'target.txt'), 't');
    fs.symlinkSync('target.txt', path.join(dir, 'link'));
    const zip = path.join(box.dir, 'links.zip');
    expect(Bun.spawnSync(['zip', '-qy', zip, 'target.txt', 'link'], { cwd: dir }).exitCode).toBe(0);
    const { after } = roundTrip(zip, (root) => {
      fs.writeFileSync(path.join(root, 'target.txt'), 'changed');
      fs.symlinkSync('/etc/passwd', path.join(root, 'outside'));
    });
    expect(after.entries.get('link')!.entry.isSymlink).toBe(true);
    expect(after.entries.get('link')!.content.toString()).toBe('target.txt');
    const outside = after.entries.get('outside')!;
    expect(outside.entry.isSymlink).toBe(true);
    expect(outside.content.toString()).toBe('/etc/passwd'); // the link itself, never the file it points at
  });

  it(
    'writes the same bytes whether the kernel copies unchanged ranges (copy_file_range) or zipfs reads and writes ' +
      'them',
    () => {
      // Over 8 MiB of data before and after the edited entry: several copy chunks and writeback steps, at odd offsets.
      const zip = pythonZip(
        'native.zip',
        `
      import random
      r = random.Random(7)
      z.writestr('a.bin', r.randbytes(9 * 1024 * 1024 + 3), zipfile.ZIP_STORED)
      z.writestr('edit.txt', 'before ' * 100)
      z.writestr('c.bin', r.randbytes(5 * 1024 * 1024 + 1), zipfile.ZIP_STORED)
      z.writestr('d.txt', 'tail ' * 1000)
    `,
      );
      const copy = path.join(box.dir, 'plain.zip');
      fs.copyFileSync(zip, copy);
      const when = new Date('2025-05-05T05:05:05Z');
      for (const [archive, env] of [
        [zip, {}],
        [copy, { ZIPFS_NATIVE: '0' }],
      ] as const) {
        const opened = box.run(['open', archive, '--json']).json;
        const file = path.join(opened.workspace_path, 'edit.txt');
        fs.writeFileSync(file, 'after, and a little longer');
        fs.utimesSync(file, when, when);
        expect(box.run(['sync', opened.session_id, '--json'], { env }).json.synced).toBe(true);
        expect(infoZip(archive).test).toBe(0);
      }
      expect(fs.readFileSync(zip).equals(fs.readFileSync(copy))).toBe(true);
      expect(
        rawEntries(zip)
          .entries.get('c.bin')!
          .local.equals(rawEntries(path.join(box.dir, 'native.zip.bak')).entries.get('c.bin')!.local),
      ).toBe(true);
    },
  );
});
