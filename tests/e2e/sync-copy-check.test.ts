/**
 * What sync copies raw is checked first (issue 28, item 9). A lazy session
 * copies the entries it never extracted, and a merge copies the other writer's:
 * a damaged one (a bad CRC-32, a broken deflate stream, a data descriptor or a
 * local header that disagrees) made an archive open refused, and sync exited
 * 0. Now the sync stops, names the entry and the way out, and leaves the zip
 * byte for byte as it was; deleting the entry from the session lets it through.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { needs } from '../helpers/tools.ts';
import { infoZip, rawEntries } from '../helpers/zip-compare.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

const TEXT = Array.from({ length: 300 }, (_, i) => `line ${i} of the damaged entry\n`).join('');

/** `bytes` with the byte at the first occurrence of `marker` (plus `shift`) changed. */
function flip(bytes: Uint8Array, marker: Uint8Array | string, shift = 0): Uint8Array {
  const out = Buffer.from(bytes);
  const at = out.indexOf(typeof marker === 'string' ? Buffer.from(marker) : Buffer.from(marker));
  if (at < 0) throw new Error('marker not found');
  out[at + shift]! ^= 0x55;
  return new Uint8Array(out);
}

/**
 * An archive whose `bad.txt` (deflated) is written with a data descriptor (flag bit 3), the local
 * header's CRC and sizes zero, as streaming writers do; `descriptorCrc` overrides the descriptor's.
 */
function withDescriptor(descriptorCrc?: number): Uint8Array {
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  const add = (name: string, data: Buffer, descriptor: boolean) => {
    const packed = zlib.deflateRawSync(data);
    const crc = zlib.crc32(data) >>> 0;
    const nameBytes = Buffer.from(name);
    const flags = descriptor ? 0x08 : 0;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(flags, 6);
    local.writeUInt16LE(8, 8);
    local.writeUInt16LE(0x21, 12);
    if (!descriptor) {
      local.writeUInt32LE(crc, 14);
      local.writeUInt32LE(packed.length, 18);
      local.writeUInt32LE(data.length, 22);
    }
    local.writeUInt16LE(nameBytes.length, 26);
    const record = Buffer.alloc(46);
    record.writeUInt32LE(0x02014b50, 0);
    record.writeUInt16LE(20, 4);
    record.writeUInt16LE(20, 6);
    record.writeUInt16LE(flags, 8);
    record.writeUInt16LE(8, 10);
    record.writeUInt16LE(0x21, 14);
    record.writeUInt32LE(crc, 16);
    record.writeUInt32LE(packed.length, 20);
    record.writeUInt32LE(data.length, 24);
    record.writeUInt16LE(nameBytes.length, 28);
    record.writeUInt32LE(offset, 42);
    const entry = [local, nameBytes, packed];
    if (descriptor) {
      const d = Buffer.alloc(16);
      d.writeUInt32LE(0x08074b50, 0);
      d.writeUInt32LE(descriptorCrc ?? crc, 4);
      d.writeUInt32LE(packed.length, 8);
      d.writeUInt32LE(data.length, 12);
      entry.push(d);
    }
    for (const part of entry) {
      parts.push(part);
      offset += part.length;
    }
    central.push(record, nameBytes);
  };
  add('a.txt', Buffer.from('alpha\n'), false);
  add('bad.txt', Buffer.from(TEXT), true);
  add('z.txt', Buffer.from('zulu\n'), false);
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(3, 8);
  end.writeUInt16LE(3, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return new Uint8Array(Buffer.concat([...parts, directory, end]));
}

const healthy = (bad: RawEntry): RawEntry[] => [
  { name: 'a.txt', data: 'alpha\n' },
  bad,
  { name: 'z.txt', data: 'zulu\n' },
];
const LARGE = Buffer.alloc(9 << 20, 'large entry, streamed when checked\n');

/** Each kind of damage open refuses and a lazy open does not see, in `bad.txt`. */
const damages: { label: string; zip: () => Uint8Array; says: string }[] = [
  {
    label: 'a stored entry with a bad CRC-32',
    zip: () => flip(rawZip(healthy({ name: 'bad.txt', data: TEXT, method: 0 })), 'line 7 of'),
    says: 'CRC-32 mismatch',
  },
  {
    label: 'a broken deflate stream',
    zip: () =>
      flip(rawZip(healthy({ name: 'bad.txt', data: TEXT })), zlib.deflateRawSync(Buffer.from(TEXT)).subarray(0, 8), 2),
    says: 'bad.txt',
  },
  {
    label: 'a data descriptor that disagrees',
    zip: () => withDescriptor(0x12345678),
    says: 'CRC-32 in the data descriptor',
  },
  {
    label: 'a local header whose CRC-32 disagrees',
    zip: () => flip(rawZip(healthy({ name: 'bad.txt', data: TEXT })), Buffer.from('bad.txt'), -16),
    says: 'bad.txt',
  },
  {
    label: 'a large stored entry with a bad CRC-32',
    zip: () => flip(rawZip(healthy({ name: 'bad.txt', data: LARGE, method: 0 })), 'large entry', 5 << 20),
    says: 'CRC-32 mismatch',
  },
  {
    label: 'a large deflated entry that inflates short',
    zip: () => rawZip(healthy({ name: 'bad.txt', data: LARGE, declaredSize: LARGE.length + 10 })),
    says: 'bad.txt',
  },
];

describe('a lazy sync of an archive with a damaged entry it never read', () => {
  it('leaves a sound archive alone: an entry with a data descriptor that agrees is copied', () => {
    const zip = writeZip(box.dir, 'ok.zip', withDescriptor());
    const root = box.run(['open', zip, '--lazy', '--json']).json.workspace_path;
    fs.writeFileSync(path.join(root, 'a.txt'), 'changed\n');
    expect(box.run(['sync', '--json']).json).toMatchObject({ synced: true, files_modified: 1 });
    expect(rawEntries(zip).entries.get('bad.txt')!.content.toString()).toBe(TEXT);
    // Checked once: the session now records that every entry of its base was checked, and later syncs copy without
    // reading.
    const manifest = fs.readFileSync(path.join(box.home, 'workspaces', 'ok', 'manifest.jsonl'), 'utf8');
    expect(JSON.parse(manifest.split('\n')[0]!).lazy.data_checked).toBe(true);
  });

  for (const { label, zip: make, says } of damages) {
    it(`refuses ${label}, naming it, and leaves the zip as it was`, () => {
      const zip = writeZip(box.dir, 'bad.zip', make());
      const before = fs.readFileSync(zip);
      const root = box.run(['open', zip, '--lazy', '--json']).json.workspace_path;
      expect(root).toBeString();
      fs.writeFileSync(path.join(root, 'a.txt'), 'changed\n');
      const refused = box.run(['sync']);
      expect(refused.code).toBe(7);
      expect(refused.stderr).toContain('[ZIP_INVALID]');
      expect(refused.stderr).toContain('entry "bad.txt" of the zip is damaged');
      expect(refused.stderr).toContain(says);
      expect(refused.stderr).toContain('zipfs delete bad.txt');
      expect(fs.readFileSync(zip).equals(before)).toBe(true);
      expect(fs.readdirSync(box.dir).filter((name) => name.endsWith('.tmp'))).toStrictEqual([]);
      // The way out: the damaged entry deleted from the session, the change kept.
      expect(box.run(['delete', 'bad.txt']).code).toBe(0);
      expect(box.run(['sync', '--json']).json).toMatchObject({ synced: true, files_modified: 1, files_deleted: 1 });
      const other = sandbox();
      try {
        expect(other.run(['open', zip]).code).toBe(0);
      } finally {
        other.cleanup();
      }
      expect([...rawEntries(zip).entries.keys()]).toStrictEqual(['a.txt', 'z.txt']);
    });
  }

  it.skipIf(needs('unzip').skip)(`writes what unzip -t passes${needs('unzip').why}`, () => {
    const zip = writeZip(box.dir, 'bad.zip', damages[0]!.zip());
    box.run(['open', zip, '--lazy']);
    box.run(['write', 'new.txt', 'new\n']);
    expect(box.run(['sync']).code).toBe(7);
    box.run(['delete', 'bad.txt']);
    expect(box.run(['sync']).code).toBe(0);
    expect(infoZip(zip).test).toBe(0);
  });

  it('says so over MCP, in the words of a tool call', async () => {
    const zip = writeZip(box.dir, 'bad.zip', damages[0]!.zip());
    const before = fs.readFileSync(zip);
    const { client, close } = await connect(box.home);
    try {
      expect((await call(client, 'zipfs_open', { path: zip, lazy: true })).isError).toBe(false);
      expect((await call(client, 'zipfs_write', { path: 'new.txt', content: 'new\n' })).isError).toBe(false);
      const refused = await call(client, 'zipfs_sync', {});
      expect(refused.data.error.code).toBe('ZIP_INVALID');
      expect(refused.data.error.message).toContain('zipfs_delete with path: "bad.txt"');
    } finally {
      await close();
    }
    expect(fs.readFileSync(zip).equals(before)).toBe(true);
  });
});

describe("a merge that would copy the other writer's damaged entry", () => {
  for (const lazy of [true, false]) {
    it(`refuses it and leaves the zip as it was (${lazy ? 'lazy' : 'eager'})`, () => {
      const zip = writeZip(box.dir, 'm.zip', rawZip(healthy({ name: 'bad.txt', data: 'fine\n' })));
      const root = box.run(['open', zip, '--json', ...(lazy ? ['--lazy'] : [])]).json.workspace_path;
      fs.writeFileSync(path.join(root, 'mine.txt'), 'mine\n');
      // The other writer adds a damaged entry (and changes nothing else).
      writeZip(
        box.dir,
        'm.zip',
        flip(
          rawZip([...healthy({ name: 'bad.txt', data: 'fine\n' }), { name: 'theirs.txt', data: TEXT, method: 0 }]),
          'line 7 of',
        ),
      );
      const before = fs.readFileSync(zip);
      const refused = box.run(['sync', '--merge']);
      expect(refused.stderr).toContain('[ZIP_INVALID]');
      // Named as damaged, by the merge's check of the zip's side (zip-now.ts) or of what it copies (copy-check.ts).
      expect(refused.stderr).toMatch(/"theirs\.txt"(: CRC-32 mismatch| of the zip is damaged)/);
      expect(refused.stderr).toMatch(/other writer left it\b/);
      expect(fs.readFileSync(zip).equals(before)).toBe(true);
      expect(fs.existsSync(path.join(root, 'theirs.txt'))).toBe(false);
    });
  }
});
