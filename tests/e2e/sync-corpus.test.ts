import { afterAll, describe, expect, it } from 'bun:test';
import { needs } from '../helpers/tools.ts';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/cli.ts';
import { corpusPath, loadCorpus } from '../helpers/corpus.ts';
import { infoZip, rawEntries } from '../helpers/zip-compare.ts';

const withUnzipZipinfo = needs('unzip', 'zipinfo');

const box = sandbox();
afterAll(() => box.cleanup());

/** Valid corpus archives that zipfs refuses on purpose: unsafe names, a file/folder clash. */
const REFUSED = new Set([
  'go/dupdir.zip',
  'go/inline-cve-2021-27919-dotdot.zip',
  'go/inline-cve-2021-41772-slash-names.zip',
]);

describe.skipIf(withUnzipZipinfo.skip)(
  `every valid corpus archive survives open, edit, sync, reopen${withUnzipZipinfo.why}`,
  () => {
    const archives = loadCorpus().filter((f) => f.valid);

    it('refuses exactly the archives it should', () => {
      for (const record of archives) {
        const copy = path.join(box.dir, 'probe.zip');
        fs.copyFileSync(corpusPath(record.file), copy);
        fs.chmodSync(copy, 0o644);
        const opened = box.run(['open', copy, '--name', 'probe', '--json']);
        expect(opened.code === 0, record.file).toBe(!REFUSED.has(record.file));
        if (opened.code === 0) box.run(['close', 'probe', '--force']);
      }
    }, 60_000);

    it.each(archives.filter((f) => !REFUSED.has(f.file)).map((f) => [f.file] as const))('%s', (file) => {
      const copy = path.join(box.dir, path.basename(file).replace(/\.\w+$|$/, '.zip'));
      fs.copyFileSync(corpusPath(file), copy);
      fs.chmodSync(copy, 0o644);
      const before = rawEntries(copy);
      const originalVerdict = infoZip(copy).test; // some corpus files already draw Info-ZIP warnings
      const opened = box.run(['open', copy, '--name', 'rt', '--json']).json;
      const target = [...before.entries.values()].find((v) => !v.entry.isDirectory && !v.entry.isSymlink);
      const edited = target
        ? path.join(opened.workspace_path, target.entry.name.replaceAll('\\', '/').replace(/^\.\//, ''))
        : undefined;
      if (edited) fs.writeFileSync(edited, 'edited by zipfs tests\n');
      const sync = box.run(['sync', 'rt', '--json']).json;
      expect(sync.synced).toBe(true);
      expect(sync.files_modified).toBe(target ? 1 : 0);
      box.run(['close', 'rt']);

      const after = rawEntries(copy);
      expect(after.order).toStrictEqual(before.order);
      expect(after.comment).toBe(before.comment);
      for (const [name, view] of before.entries) {
        const now = after.entries.get(name)!;
        if (name === target?.entry.name) {
          expect(now.content.toString()).toBe('edited by zipfs tests\n');
          expect(now.entry.method).toBe(view.entry.method);
          continue;
        }
        expect(now.local.equals(view.local), `${name}: local header and data`).toBe(true);
        expect(now.central.equals(view.central), `${name}: central record`).toBe(true);
      }
      const reopened = box.run(['open', copy, '--name', 'again', '--json']);
      expect(reopened.code).toBe(0);
      if (target)
        expect(box.run(['read', edited!.slice(opened.workspace_path.length + 1), '-s', 'again']).stdout).toBe(
          'edited by zipfs tests\n',
        );
      box.run(['close', 'again']);
      expect(infoZip(copy).test, infoZip(copy).testOutput).toBeLessThanOrEqual(originalVerdict);
    });
  },
);
