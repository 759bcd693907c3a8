/**
 * Which raw copies a sync checks (copy-check.ts, issue 28 item 9): each entry
 * once per session. An eager session's own zip was checked at open; a lazy
 * session checks what it never extracted until a sync has checked it all
 * (`lazy.data_checked`); another writer's zip is checked whole.
 */
import { afterAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CopyCheck } from '../src/sync/copy-check.ts';
import { FileSource, readPackedDirectory } from '../src/zip/index.ts';
import type { EntryRecord, SessionRecord } from '../src/session/manifest.ts';
import { EagerBase } from '../src/workspace/eager-base.ts';
import { LazyBase } from '../src/workspace/lazy-base.ts';
import { rawZip } from './helpers/raw-zip.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-copy-check-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

/** A zip whose stored `bad.txt` (entry 1) fails its CRC-32. */
function damagedZip(): string {
  const bytes = Buffer.from(
    rawZip([
      { name: 'a.txt', data: 'alpha\n' },
      { name: 'bad.txt', data: 'stored and then damaged\n', method: 0 },
    ]),
  );
  bytes[bytes.indexOf('stored and')]! ^= 0x55;
  const file = path.join(dir, 'bad.zip');
  fs.writeFileSync(file, bytes);
  return file;
}

const lazyFacts = { entries: 2, base_offset: 0, central_start: 0 };
const session = (lazy?: SessionRecord['lazy']) => ({ lazy }) as SessionRecord;
const extracted = { extracted: { size: 1, mtime_ms: 0, ctime_ms: 0, ino: 1 } } as EntryRecord;

/** Whether copying entry 1 of the damaged zip is refused, under these options. */
async function refused(
  options: { session: SessionRecord; otherWriter: boolean },
  record?: EntryRecord,
): Promise<string | undefined> {
  const file = damagedZip();
  const source = new FileSource(file);
  const fd = fs.openSync(file, 'r');
  try {
    // What was checked already is the base's to say (workspace/base.ts), from the session's record.
    const lines = { session: options.session, entries: [] };
    const base = options.session.lazy ? new LazyBase(lines, '') : new EagerBase(lines);
    const check = new CopyCheck(source, readPackedDirectory(source), {
      checked: base.copiesChecked,
      otherWriter: options.otherWriter,
      fd,
      pause: async () => {},
    });
    await check.beforeCopy(1, record);
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  } finally {
    fs.closeSync(fd);
    source.close();
  }
}

describe('the raw copies a sync checks', () => {
  it("checks a lazy session's entries never extracted, until a sync has checked them all", async () => {
    expect(await refused({ session: session(lazyFacts), otherWriter: false })).toBe('ZIP_INVALID');
    expect(
      await refused({ session: session({ ...lazyFacts, data_checked: true }), otherWriter: false }),
    ).toBeUndefined();
  });

  it('trusts what a lazy session extracted (checked as it was read) and an eager session its own zip', async () => {
    expect(await refused({ session: session(lazyFacts), otherWriter: false }, extracted)).toBeUndefined();
    expect(await refused({ session: session(), otherWriter: false })).toBeUndefined();
  });

  it("checks every copy of another writer's zip, whatever the session checked of its own", async () => {
    expect(await refused({ session: session(), otherWriter: true }, extracted)).toBe('ZIP_INVALID');
    expect(await refused({ session: session({ ...lazyFacts, data_checked: true }), otherWriter: true })).toBe(
      'ZIP_INVALID',
    );
  });
});
