/**
 * The write-back policy, in process (issue 32, point 4): an unchanged entry of any method is copied raw; a changed
 * one keeps its method where zipfs can write it (stored, deflate, zstd) and is deflated otherwise, and sync's answer
 * names it (method_changed), a dry run too. A method zipfs reads but cannot write stands in here as a test codec
 * registered under PPMd's number (98), which zipfs does not read, with no encoder: a method read but never written.
 */
import { afterAll, afterEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openArchive } from '../../src/open/open-archive.ts';
import { loadLimits } from '../../src/rules/limits.ts';
import type { Session } from '../../src/session/session-store.ts';
import { syncSession } from '../../src/sync/sync-archive.ts';
import {
  FileSource,
  locateEntryData,
  readCentralDirectory,
  readEntryData,
  registerCodec,
} from '../../src/zip/index.ts';
import { rle, text, writeZip } from '../helpers/test-codecs.ts';

const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-method-policy-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));
const undo: (() => void)[] = [];
afterEach(() => {
  for (const take of undo.splice(0)) take();
});

const limits = loadLimits({});
/** Read but never written: PPMd's number, the test codec's run-length pairs, and no encoder. */
const readOnly = { ...rle, method: 98, name: 'ppmd', encoder: undefined };

/** Each entry of `zip`: its method, its data as the zip holds it (raw) and decoded. */
function entriesOf(zip: string) {
  const source = new FileSource(zip);
  try {
    return new Map(
      readCentralDirectory(source).entries.map((entry) => {
        const span = locateEntryData(source, entry);
        const raw = Buffer.from(source.read(span.dataOffset, entry.compressedSize));
        return [entry.name, { method: entry.method, raw, data: Buffer.from(readEntryData(source, entry)) }];
      }),
    );
  } finally {
    source.close();
  }
}

let count = 0;
async function opened(): Promise<{ zip: string; session: Session }> {
  const dir = path.join(scratch, `case-${++count}`);
  fs.mkdirSync(dir);
  const zip = path.join(dir, 'mixed.zip');
  // Written while the codec can encode (writeZip encodes with the registry), read after while it cannot.
  const writable = registerCodec({ ...readOnly, encoder: rle.encoder });
  writeZip(zip, [
    { name: 'b1.txt', method: 98, data: text },
    { name: 'b2.txt', method: 98, data: text },
    { name: 'z.txt', method: 93, data: text },
    { name: 's.txt', method: 0, data: text },
    { name: 'd.txt', method: 8, data: text },
  ]);
  writable();
  undo.push(registerCodec(readOnly));
  const session = await openArchive({ zipPath: zip, home: path.join(dir, 'home'), limits });
  return { zip, session };
}

const sync = (session: Session, dryRun = false) =>
  syncSession({ session, force: false, dryRun, backup: false, wait: { waitMs: 0 }, limits });

describe('a changed entry of a method zipfs cannot write', () => {
  it('is deflated and named; the others keep their method, an unchanged one its very bytes', async () => {
    const { zip, session } = await opened();
    const before = entriesOf(zip);
    for (const name of ['b1.txt', 'z.txt', 's.txt', 'd.txt'])
      fs.appendFileSync(path.join(session.contents, name), 'one more line\n');

    const dry = await sync(session, true);
    expect(dry.method_changed).toStrictEqual(['b1.txt: ppmd -> deflate']);

    const done = await sync(session);
    expect(done.synced).toBe(true);
    expect(done.files_modified).toBe(4);
    expect(done.method_changed).toStrictEqual(['b1.txt: ppmd -> deflate']);
    const after = entriesOf(zip);
    expect([...after].map(([name, entry]) => [name, entry.method])).toStrictEqual([
      ['b1.txt', 8],
      ['b2.txt', 98],
      ['z.txt', 93],
      ['s.txt', 0],
      ['d.txt', 8],
    ]);
    expect(after.get('b2.txt')!.raw.equals(before.get('b2.txt')!.raw)).toBe(true); // copied raw
    for (const name of ['b1.txt', 'z.txt', 's.txt', 'd.txt'])
      expect(after.get(name)!.data.toString()).toBe(`${text}one more line\n`);
  });

  it('says nothing when every changed entry keeps its method', async () => {
    const { session } = await opened();
    fs.appendFileSync(path.join(session.contents, 'z.txt'), 'more\n');
    fs.renameSync(path.join(session.contents, 's.txt'), path.join(session.contents, 's2.txt'));
    const done = await sync(session);
    expect(done.files_modified + (done.files_renamed ?? 0)).toBe(2);
    expect(done).not.toHaveProperty('method_changed');
  });

  it('renamed, it is rewritten and named under its new path', async () => {
    const { zip, session } = await opened();
    fs.renameSync(path.join(session.contents, 'b2.txt'), path.join(session.contents, 'moved.txt'));
    const done = await sync(session);
    expect(done.method_changed).toStrictEqual(['moved.txt: ppmd -> deflate']);
    expect(entriesOf(zip).get('moved.txt')!.method).toBe(8);
  });
});
