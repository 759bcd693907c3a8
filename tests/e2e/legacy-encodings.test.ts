/**
 * Legacy encodings (issue 32, part 5), through the compiled binary on both surfaces. Names: archives whose names are
 * CP866 (Russian DOS/Windows) and CP932 (Japanese Windows) bytes without the UTF-8 flag, written raw by Info-ZIP's
 * `zip` from Linux files whose names are those bytes (in the C locale zip neither sets the flag nor adds a Unicode
 * Path field): inspect and open warn naming the encoding, name_encoding reads the names right, and a sync after an
 * edit keeps every kept name's bytes (read from the central directory here), while an added name is UTF-8 with the
 * flag; 7-Zip and unzip read the result. Contents: Windows-1251 and Shift_JIS files read, grep and edit back to the
 * exact bytes Python's codecs write, and a character the encoding lacks is refused with nothing written.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { needs } from '../helpers/tools.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

/** `text` in Python's codec `codec` (cp866, cp932, cp1251), as the bytes a Windows tool writes. */
function encoded(text: string, codec: string): Buffer<ArrayBuffer> {
  return Buffer.from(
    execFileSync('python3', ['-c', `import sys; sys.stdout.buffer.write(sys.stdin.read().encode('${codec}'))`], {
      input: text,
    }),
  );
}

/**
 * A zip of `files` (path -> content) whose names are `codec` bytes: the files are made with those bytes as their
 * names, and Info-ZIP's zip stores them as they are.
 */
function rawNameZip(name: string, codec: string, files: Record<string, string>): string {
  const src = path.join(box.dir, `${name}-src`);
  for (const [relative, content] of Object.entries(files)) {
    const parts = relative.split('/').map((part) => encoded(part, codec));
    const dir = Buffer.concat([Buffer.from(`${src}/`), ...parts.slice(0, -1).map((p) => Buffer.concat([p, SLASH]))]);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(Buffer.concat([dir, parts.at(-1)!]), content);
  }
  const zip = path.join(box.dir, `${name}.zip`);
  execFileSync('zip', ['-qr', zip, '.'], { cwd: src, env: { ...process.env, LC_ALL: 'C', LANG: 'C' } });
  return zip;
}
const SLASH = Buffer.from('/');

/** Each central-directory record's name bytes (hex) and whether it carries the UTF-8 flag, read from the file. */
function centralNames(zip: string): { hex: string; utf8: boolean }[] {
  const bytes = fs.readFileSync(zip);
  const end = bytes.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  const count = bytes.readUInt16LE(end + 10);
  let at = bytes.readUInt32LE(end + 16);
  const names: { hex: string; utf8: boolean }[] = [];
  for (let i = 0; i < count; i++) {
    expect(bytes.readUInt32LE(at)).toBe(0x02014b50);
    const [nameLength, extraLength, commentLength] = [28, 30, 32].map((o) => bytes.readUInt16LE(at + o));
    names.push({
      hex: bytes.subarray(at + 46, at + 46 + nameLength!).toString('hex'),
      utf8: (bytes.readUInt16LE(at + 8) & 0x0800) !== 0,
    });
    at += 46 + nameLength! + extraLength! + commentLength!;
  }
  return names;
}

/** The entry whose raw name is `name` (Python gives an unflagged name as CP437: encoded back, its bytes), by Python. */
function pythonRead(zip: string, name: Buffer): string {
  const script =
    'import sys, zipfile\n' +
    'z = zipfile.ZipFile(sys.argv[1])\n' +
    'raw = lambda i: i.filename.encode("utf-8" if i.flag_bits & 0x800 else "cp437")\n' +
    'sys.stdout.buffer.write(z.read(next(i for i in z.infolist() if raw(i).hex() == sys.argv[2])))';
  return execFileSync('python3', ['-c', script, zip, name.toString('hex')]).toString();
}

const RUSSIAN = {
  'Документы/Письмо.txt': 'letter\n',
  'Отчёт за квартал.txt': 'report\n',
  'readme.txt': 'plain\n',
};
const JAPANESE = {
  '資料/会議録.txt': 'minutes\n',
  'テスト.txt': 'test\n',
  'readme.txt': 'plain\n',
};

describe.skipIf(needs('zip', 'unzip', '7zz', 'python3').skip)('names in a legacy code page', () => {
  it('CLI, CP866: warns naming CP866, reads the names with --name-encoding, keeps their bytes through a sync', () => {
    const zip = rawNameZip('cp866', 'cp866', RUSSIAN);
    execFileSync('zip', ['-qz', zip], { input: encoded('Архив', 'cp866') }); // the archive comment, raw too
    const before = centralNames(zip);
    expect(before.every((name) => !name.utf8)).toBe(true);

    const inspected = box.run(['inspect', zip, '--json']).json;
    const warning = inspected.warnings.find((w: string) => w.includes('no UTF-8 flag'));
    expect(warning).toContain('CP866');
    expect(warning).toContain('--name-encoding cp866');
    expect(warning).toContain('"Документы/"');
    const asCp866 = box.run(['inspect', zip, '--name-encoding', 'cp866', '--json']).json;
    expect(asCp866.entries.map((e: { name: string }) => e.name).sort()).toStrictEqual(
      ['Документы/', 'Документы/Письмо.txt', 'Отчёт за квартал.txt', 'readme.txt'].sort(),
    );
    expect(asCp866.warnings).toStrictEqual([]);
    expect(asCp866.comment).toBe('Архив');

    // Without the encoding, open warns; the session then refuses another encoding until it is closed.
    const opened = box.run(['open', zip, '--json']).json;
    expect(opened.warnings.join('\n')).toContain('--name-encoding cp866');
    expect(box.run(['open', zip, '--name-encoding', 'cp866', '--json']).json.error.code).toBe('INVALID_INPUT');
    expect(box.run(['close']).code).toBe(0);

    expect(box.run(['open', zip, '--name-encoding', 'cp866', '--json']).json.warnings).toBeUndefined();
    const listed = box.run(['ls', '-r', '--json']).json.entries.map((e: { name: string }) => e.name);
    expect(listed).toContain('Документы/Письмо.txt');
    expect(box.run(['read', 'Отчёт за квартал.txt']).stdout).toBe('report\n');
    expect(box.run(['edit', 'Отчёт за квартал.txt', '--old', 'report', '--new', 'quarterly report']).code).toBe(0);
    expect(box.run(['write', 'Новый.txt'], { stdin: 'new\n' }).code).toBe(0);
    expect(box.run(['sync', '--json']).code).toBe(0);
    expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });

    const after = centralNames(zip);
    // Every entry the zip had keeps its name's bytes, the edited one too; the added one is UTF-8, flagged.
    for (const name of before) expect(after).toContainEqual(name);
    expect(after).toContainEqual({ hex: Buffer.from('Новый.txt').toString('hex'), utf8: true });
    expect(after).toHaveLength(before.length + 1);
    expect(box.run(['inspect', zip, '--name-encoding', 'cp866', '--json']).json.comment).toBe('Архив');
    execFileSync('unzip', ['-tq', zip]);
    expect(execFileSync('7zz', ['t', zip]).toString()).toContain('Everything is Ok');
    expect(pythonRead(zip, encoded('Отчёт за квартал.txt', 'cp866'))).toBe('quarterly report\n');
  });

  it('MCP, CP932: inspect names Shift_JIS; name_encoding reads them; edit, move, sync keep kept names', async () => {
    const zip = rawNameZip('cp932', 'cp932', JAPANESE);
    const before = centralNames(zip);
    const mcp = await connect(box.home);
    try {
      const inspected = await call(mcp.client, 'zipfs_inspect', { path: zip });
      const warning = inspected.data.warnings.find((w: string) => w.includes('no UTF-8 flag'));
      expect(warning).toContain('Shift_JIS');
      expect(warning).toContain('"shift_jis"');
      const opened = await call(mcp.client, 'zipfs_open', { path: zip, name_encoding: 'shift_jis', lazy: true });
      expect(opened.isError).toBe(false);
      expect(opened.data.warnings).toBeUndefined();
      const listed = await call(mcp.client, 'zipfs_ls', { recursive: true });
      expect(listed.data.entries.map((e: { name: string }) => e.name)).toContain('資料/会議録.txt');
      const edited = await call(mcp.client, 'zipfs_edit', {
        path: '資料/会議録.txt',
        edits: [{ old_text: 'minutes', new_text: 'the minutes' }],
      });
      expect(edited.isError).toBe(false);
      expect((await call(mcp.client, 'zipfs_move', { from: 'テスト.txt', to: '試験.txt' })).isError).toBe(false);
      expect((await call(mcp.client, 'zipfs_sync')).isError).toBe(false);
      expect((await call(mcp.client, 'zipfs_status')).data).toMatchObject({ modified: [], added: [], deleted: [] });
    } finally {
      await mcp.close();
    }
    // The kept names' bytes are as they were, the edited entry's too; the renamed one is UTF-8, flagged.
    const moved = encoded('テスト.txt', 'cp932').toString('hex');
    const after = centralNames(zip);
    expect(after.filter((name) => name.utf8)).toStrictEqual([
      { hex: Buffer.from('試験.txt').toString('hex'), utf8: true },
    ]);
    expect(after.filter((name) => !name.utf8)).toStrictEqual(before.filter((name) => name.hex !== moved));
    expect(execFileSync('7zz', ['t', zip]).toString()).toContain('Everything is Ok');
    expect(pythonRead(zip, encoded('資料/会議録.txt', 'cp932'))).toBe('the minutes\n');
  });
});

describe.skipIf(needs('zip', 'python3').skip)('a session with a name encoding, merging another writer', () => {
  it("reads the other writer's CP866 names as the session does: status and sync --merge name them right", () => {
    const zip = rawNameZip('cp866', 'cp866', RUSSIAN);
    expect(box.run(['open', zip, '--name-encoding', 'cp866']).code).toBe(0);
    expect(box.run(['write', 'Мой.txt'], { stdin: 'mine\n' }).code).toBe(0);
    // Another writer (Info-ZIP zip again) adds an entry with a CP866 name to the zip.
    const theirs = path.join(box.dir, 'theirs');
    fs.mkdirSync(theirs);
    fs.writeFileSync(Buffer.concat([Buffer.from(`${theirs}/`), encoded('Чужой.txt', 'cp866')]), 'theirs\n');
    execFileSync('zip', ['-qr', zip, '.'], {
      cwd: theirs,
      env: { ...process.env, LC_ALL: 'C', LANG: 'C' },
    });
    expect(box.run(['status', '--json']).json.zip_changed).toStrictEqual(['A Чужой.txt']);
    expect(box.run(['sync', '--merge', '--json']).code).toBe(0);
    expect(box.run(['read', 'Чужой.txt']).stdout).toBe('theirs\n');
    expect(box.run(['status', '--json']).json).toMatchObject({ modified: [], added: [], deleted: [] });
    expect(centralNames(zip)).toContainEqual({ hex: encoded('Чужой.txt', 'cp866').toString('hex'), utf8: false });
  });
});

const RU_TEXT = 'Привет, мир!\nВторая строка: отчёт\n';
const JA_TEXT = 'こんにちは世界\n二行目：報告書～①\n';

/** A session of a zip holding ru.txt (Windows-1251) and ja.txt (Shift_JIS, as Windows' CP932 writes it). */
function contentSession(): string {
  const src = path.join(box.dir, 'content');
  fs.mkdirSync(src);
  fs.writeFileSync(path.join(src, 'ru.txt'), encoded(RU_TEXT, 'cp1251'));
  fs.writeFileSync(path.join(src, 'ja.txt'), encoded(JA_TEXT, 'cp932'));
  const zip = path.join(box.dir, 'content.zip');
  execFileSync('zip', ['-q', zip, 'ru.txt', 'ja.txt'], { cwd: src });
  expect(box.run(['open', zip]).code).toBe(0);
  return path.join(box.home, 'workspaces', 'content', 'contents');
}

describe.skipIf(needs('zip', 'python3').skip)('contents in a legacy code page', () => {
  it('CLI: read, grep and edit Windows-1251 and Shift_JIS back to the exact bytes; refuse what they lack', () => {
    const root = contentSession();
    expect(box.run(['read', 'ru.txt', '--encoding', 'windows-1251']).stdout).toBe(RU_TEXT);
    expect(box.run(['read', 'ja.txt', '--encoding', 'shift_jis']).stdout).toBe(JA_TEXT);
    // A page that starts inside a character ("こ" is bytes 0-1) starts at the next, and ends after the last whole one.
    const page = box.run(['read', 'ja.txt', '--encoding', 'shift_jis', '--offset', '1', '--limit', '5', '--json']).json;
    expect(page).toMatchObject({ content: 'んに', offset: 2, encoding: 'shift_jis' });
    expect(box.run(['grep', 'отч', '--encoding', 'windows-1251']).stdout).toContain('ru.txt:2:Вторая строка: отчёт');
    expect(box.run(['grep', '報告', '--encoding', 'shift_jis']).stdout).toContain('ja.txt:2:二行目：報告書～①');

    expect(box.run(['edit', 'ru.txt', '--encoding', 'windows-1251', '--old', 'мир', '--new', 'свет']).code).toBe(0);
    expect(box.run(['edit', 'ja.txt', '--encoding', 'shift_jis', '--old', '報告書', '--new', '会議録']).code).toBe(0);
    expect(fs.readFileSync(path.join(root, 'ru.txt'))).toStrictEqual(encoded(RU_TEXT.replace('мир', 'свет'), 'cp1251'));
    expect(fs.readFileSync(path.join(root, 'ja.txt'))).toStrictEqual(
      encoded(JA_TEXT.replace('報告書', '会議録'), 'cp932'),
    );

    for (const [file, encoding, old, char] of [
      ['ru.txt', 'windows-1251', 'отчёт', '☃'],
      ['ja.txt', 'shift_jis', '①', '¥'],
    ] as const) {
      const bytes = fs.readFileSync(path.join(root, file));
      const refused = box.run(['edit', file, '--encoding', encoding, '--old', old, '--new', old + char, '--json']);
      expect(refused.json.error.code).toBe('INVALID_INPUT');
      expect(refused.json.error.message).toContain(`cannot hold "${char}"`);
      expect(refused.json.error.message).toContain('nothing was written');
      expect(fs.readFileSync(path.join(root, file))).toStrictEqual(bytes);
    }
    // IBM's 0xFA4A is "Ⅰ" too, which Shift_JIS writes as NEC's 0x8754: edit would change it, so it refuses the file.
    const ibm = Buffer.from([0x41, 0xfa, 0x4a, 0x0a]);
    fs.writeFileSync(path.join(root, 'ibm.txt'), ibm);
    const refused = box.run(['edit', 'ibm.txt', '--encoding', 'shift_jis', '--old', 'A', '--new', 'B', '--json']);
    expect(refused.json.error.code).toBe('INVALID_INPUT');
    expect(refused.json.error.message).toContain('nothing was written');
    expect(fs.readFileSync(path.join(root, 'ibm.txt'))).toStrictEqual(ibm);
    expect(box.run(['read', 'ibm.txt', '--encoding', 'shift_jis']).stdout).toBe('AⅠ\n');
  });

  it('MCP: read, grep and edit Shift_JIS and Windows-1251 exactly', async () => {
    const root = contentSession();
    const mcp = await connect(box.home);
    try {
      const read = await call(mcp.client, 'zipfs_read', { path: 'ja.txt', encoding: 'shift_jis' });
      expect(read.data).toMatchObject({ content: JA_TEXT, encoding: 'shift_jis' });
      const grep = await call(mcp.client, 'zipfs_grep', { pattern: 'Вторая', encoding: 'windows-1251' });
      expect(JSON.stringify(grep.data)).toContain('Вторая строка: отчёт');
      const edit = await call(mcp.client, 'zipfs_edit', {
        path: 'ru.txt',
        encoding: 'windows-1251',
        edits: [{ old_text: 'Привет', new_text: 'Здравствуй' }],
      });
      expect(edit.isError).toBe(false);
      const refused = await call(mcp.client, 'zipfs_edit', {
        path: 'ja.txt',
        encoding: 'shift_jis',
        edits: [{ old_text: '世界', new_text: '世界 😀' }],
      });
      expect(refused.data.error.code).toBe('INVALID_INPUT');
    } finally {
      await mcp.close();
    }
    expect(fs.readFileSync(path.join(root, 'ru.txt'))).toStrictEqual(
      encoded(RU_TEXT.replace('Привет', 'Здравствуй'), 'cp1251'),
    );
    expect(fs.readFileSync(path.join(root, 'ja.txt'))).toStrictEqual(encoded(JA_TEXT, 'cp932'));
  });
});
