/**
 * Every byte round-trips: files in UTF-8 with a BOM, UTF-16, ISO-8859-1 and
 * Windows-1252 are read, grepped and edited as text and written back in their
 * own encoding, and diff names what a line diff cannot show. Both surfaces,
 * through the compiled binary, on a jar-like archive.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { zipSync } from 'fflate';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { MTIME } from '../helpers/fixtures.ts';
import { call, connect } from '../helpers/mcp-client.ts';

const latin1 = (text: string) => Buffer.from(text, 'latin1');
const PROPERTIES = latin1('# messages\ngreeting=Café\nfarewell=Adiós\n');
const BOM_TEXT = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('name,city\nAnna,Zürich\n')]);
const UTF16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('title=Überblick\nnote=ok\n', 'utf16le')]);
const CP1252 = Buffer.from([...Buffer.from('price='), 0x80, ...Buffer.from('5\n')]);
const CRLF = Buffer.from('one\r\ntwo\r\n');
/** A .class-like file: magic, NUL bytes, and a constant pool with the class and a string in it. */
const CLASS = Buffer.concat([
  Buffer.from([0xca, 0xfe, 0xba, 0xbe, 0, 0, 0, 0x41, 0, 0x0f, 1, 0, 15]),
  Buffer.from('com/example/App'),
  Buffer.from([1, 0, 5]),
  Buffer.from('Hello'),
  Buffer.from([0, 0, 0]),
]);

function jar(): Uint8Array {
  return zipSync(
    {
      'META-INF/MANIFEST.MF': Buffer.from('Manifest-Version: 1.0\r\n'),
      'com/example/messages.properties': PROPERTIES,
      'com/example/App.class': CLASS,
      'data/bom.csv': BOM_TEXT,
      'data/utf16.txt': UTF16,
      'data/cp1252.txt': CP1252,
      'data/crlf.txt': CRLF,
    },
    { mtime: MTIME },
  );
}

let box: ReturnType<typeof sandbox>;
let root: string;
beforeEach(() => {
  box = sandbox();
  root = box.run(['open', writeZip(box.dir, 'app.jar', jar()), '--json']).json.workspace_path;
});
afterEach(() => box.cleanup());
const file = (relative: string) => fs.readFileSync(path.join(root, relative));

describe('zipfs read, edit, grep and diff over text encodings (CLI)', () => {
  it('reads a UTF-8 file with a BOM as its exact characters, and writing them back changes no byte', () => {
    const page = box.run(['read', 'data/bom.csv', '--json']).json;
    expect(page).toMatchObject({
      encoding: 'utf-8',
      bytes_read: BOM_TEXT.length,
      content: '\uFEFFname,city\nAnna,Zürich\n',
    });
    expect(box.run(['write', 'data/bom.csv', page.content, '--json']).code).toBe(0);
    expect(file('data/bom.csv')).toStrictEqual(BOM_TEXT);
    expect(box.run(['status', '--json']).json.modified).toStrictEqual([]);
    // By lines too: line 1 starts with the BOM.
    expect(box.run(['read', 'data/bom.csv', '--start-line', '1', '--end-line', '1', '--json']).json.content).toBe(
      '\uFEFFname,city\n',
    );
  });

  it('says what differs when no line does: a BOM removed, line endings changed', () => {
    fs.writeFileSync(path.join(root, 'data/bom.csv'), BOM_TEXT.subarray(3));
    fs.writeFileSync(path.join(root, 'data/crlf.txt'), 'one\ntwo\n');
    const out = box.run(['diff', '--json']).json;
    expect(out.files).toStrictEqual([
      {
        path: 'data/bom.csv',
        status: 'modified',
        binary: false,
        additions: 0,
        deletions: 0,
        difference: 'the byte-order mark (a UTF-8 byte-order mark before, no byte-order mark after)',
      },
      {
        path: 'data/crlf.txt',
        status: 'modified',
        binary: false,
        additions: 0,
        deletions: 0,
        difference: 'line endings (CRLF before, LF after)',
      },
    ]);
    expect(out.diff).toContain(
      'Files a/data/crlf.txt and b/data/crlf.txt differ only in line endings (CRLF before, LF after)\n',
    );
    expect(box.run(['diff', '--stat']).stdout).toContain('M data/crlf.txt  line endings (CRLF before, LF after)');
  });

  it('reads, greps and edits an ISO-8859-1 .properties file, keeping every other byte', () => {
    // not UTF-8, and no BOM to say otherwise
    expect(box.run(['read', 'com/example/messages.properties', '--json']).json.encoding).toBe('base64');
    const page = box.run(['read', 'com/example/messages.properties', '--encoding', 'iso-8859-1', '--json']).json;
    expect(page).toMatchObject({
      encoding: 'iso-8859-1',
      content: '# messages\ngreeting=Café\nfarewell=Adiós\n',
      bytes_read: PROPERTIES.length,
    });
    const found = box.run(['grep', 'Café', '--encoding', 'iso-8859-1', '--json']).json;
    expect(found.matches).toStrictEqual([
      { file: 'com/example/messages.properties', line_number: 2, column: 10, line_content: 'greeting=Café' },
    ]);
    // UTF-8 by default: the byte 0xE9 is no é there
    expect(box.run(['grep', 'Café', '--json']).json.total_matches).toBe(0);

    const refused = box.run(['edit', 'com/example/messages.properties', '--old', 'Café', '--new', 'Caffè', '--json']);
    expect(refused.json.error.code).toBe('INVALID_INPUT');
    expect(refused.json.error.message).toContain('--encoding iso-8859-1');
    const edited = box.run([
      'edit',
      'com/example/messages.properties',
      '--old',
      'Café',
      '--new',
      'Caffè',
      '--encoding',
      'iso-8859-1',
      '--json',
    ]).json;
    expect(edited.diff).toContain('-greeting=Café\n+greeting=Caffè\n');
    expect(file('com/example/messages.properties')).toStrictEqual(
      latin1('# messages\ngreeting=Caffè\nfarewell=Adiós\n'),
    );
    expect(edited.sha256).toBe(
      new Bun.CryptoHasher('sha256').update(file('com/example/messages.properties')).digest('hex'),
    );
  });

  it('refuses an edit bringing a character ISO-8859-1 cannot hold, and writes nothing', () => {
    const refused = box.run([
      'edit',
      'com/example/messages.properties',
      '--old',
      'Café',
      '--new',
      'Café €',
      '--encoding',
      'iso-8859-1',
      '--json',
    ]);
    expect(refused.json.error.code).toBe('INVALID_INPUT');
    expect(refused.json.error.message).toContain('ISO-8859-1, which cannot hold "€" (U+20AC, line 2');
    expect(file('com/example/messages.properties')).toStrictEqual(PROPERTIES);
  });

  it('reads and edits UTF-16LE with a BOM without being told', () => {
    const page = box.run(['read', 'data/utf16.txt', '--json']).json;
    expect(page).toMatchObject({
      encoding: 'utf-16le',
      content: '\uFEFFtitle=Überblick\nnote=ok\n',
      bytes_read: UTF16.length,
    });
    expect(box.run(['read', 'data/utf16.txt', '--start-line', '2', '--json']).json).toMatchObject({
      content: 'note=ok\n',
      offset: 2 + 2 * 'title=Überblick\n'.length,
      total_lines: 2,
    });
    // A page cut mid code unit starts on the next one.
    expect(box.run(['read', 'data/utf16.txt', '--offset', '3', '--limit', '4', '--json']).json).toMatchObject({
      offset: 4,
      content: 'i',
      bytes_read: 2,
    });
    expect(box.run(['grep', '^title=Ü', '--json']).json.matches).toStrictEqual([
      { file: 'data/utf16.txt', line_number: 1, column: 1, line_content: 'title=Überblick' },
    ]);
    box.run(['edit', 'data/utf16.txt', '--old', 'ok', '--new', 'gut', '--json']);
    expect(file('data/utf16.txt')).toStrictEqual(
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('title=Überblick\nnote=gut\n', 'utf16le')]),
    );
    expect(box.run(['read', 'data/utf16.txt', '--encoding', 'iso-8859-1', '--json']).json.error.message).toContain(
      'UTF-16LE byte-order mark',
    );
  });

  it('reads Windows-1252 with € at 0x80, where ISO-8859-1 has a C1 control, and edits it back byte for byte', () => {
    expect(box.run(['read', 'data/cp1252.txt', '--encoding', 'windows-1252', '--json']).json.content).toBe(
      'price=€5\n',
    );
    expect(box.run(['read', 'data/cp1252.txt', '--encoding', 'iso-8859-1', '--json']).json.content).toBe(
      'price=\u00805\n',
    );
    box.run(['edit', 'data/cp1252.txt', '--old', '5', '--new', '6 – 7', '--encoding', 'windows-1252', '--json']);
    expect(file('data/cp1252.txt')).toStrictEqual(
      Buffer.from([...Buffer.from('price='), 0x80, ...Buffer.from('6 '), 0x96, ...Buffer.from(' 7\n')]),
    );
  });

  it('finds a string in a binary .class only when asked to search binary files', () => {
    const skipped = box.run(['grep', 'com/example', '--json']).json;
    expect(skipped).toMatchObject({ total_matches: 0, skipped_binary: 1 });
    const found = box.run(['grep', 'com/example/A', '--binary', '--json']).json;
    expect(found.matches).toStrictEqual([
      { file: 'com/example/App.class', line_number: 0, line_content: 'com/example/App', byte_offset: 13 },
    ]);
    expect(box.run(['grep', 'Hello', '--binary']).stdout).toBe('com/example/App.class:byte 31:Hello\n');
  });

  it(
    'says why nothing was searched or shown: a glob that ' + 'matched no file, a truncated answer, an empty line range',
    () => {
      expect(box.run(['grep', 'x', '--glob', '*.java', '--json']).json.note).toContain(
        'The glob "*.java" matched no file',
      );
      const truncated = box.run(['grep', 'e', '-m', '1']);
      // the next page, as every paged answer says
      expect(truncated.stderr).toContain('continue with --offset 1 (or raise --max-results)');
      expect(box.run(['grep', 'e', '-m', '1', '--json']).json.note).toContain(
        'raise --max-results 10 (up to 100000) for more',
      );
      expect(box.run(['read', 'data/crlf.txt', '--start-line', '5', '--json']).json.error.message).toContain(
        'has 2 lines, so line 5 is past its end',
      );
      expect(box.run(['read', 'data/crlf.txt', '--start-line', '2', '--end-line', '1', '--json']).json.error.code).toBe(
        'INVALID_INPUT',
      );
    },
  );
});

describe('the same over MCP', () => {
  let mcp: Awaited<ReturnType<typeof connect>>;
  beforeEach(async () => (mcp = await connect(box.home)));
  afterEach(() => mcp.close());

  it('round-trips a BOM, shows a CRLF-only change, and works a Latin-1, a UTF-16 and a binary entry', async () => {
    const client = mcp.client;
    const session = 'app'; // opened by the CLI in the same data folder
    const read = await call(client, 'zipfs_read', { session, path: 'data/bom.csv' });
    expect(read.data.content).toBe('\uFEFFname,city\nAnna,Zürich\n');
    await call(client, 'zipfs_write', { session, path: 'data/bom.csv', content: read.data.content });
    expect((await call(client, 'zipfs_status', { session })).data.modified).toStrictEqual([]);

    const workspace = (await call(client, 'zipfs_path', { session })).data.path;
    fs.writeFileSync(path.join(workspace, 'data/crlf.txt'), 'one\ntwo\n');
    const diff = await call(client, 'zipfs_diff', { session });
    expect(diff.data.files[0]).toMatchObject({
      path: 'data/crlf.txt',
      difference: 'line endings (CRLF before, LF after)',
    });

    const props = { session, path: 'com/example/messages.properties', encoding: 'iso-8859-1' };
    expect((await call(client, 'zipfs_read', props)).data.content).toContain('greeting=Café');
    expect(
      (await call(client, 'zipfs_grep', { session, pattern: 'Adiós', encoding: 'iso-8859-1' })).data.matches[0]
        .line_number,
    ).toBe(3);
    const refused = await call(client, 'zipfs_edit', { ...props, edits: [{ old_text: 'Café', new_text: 'Caf€' }] });
    expect(refused.data.error).toMatchObject({ code: 'INVALID_INPUT' });
    expect(refused.data.error.message).toContain('cannot hold "€"');
    await call(client, 'zipfs_edit', { ...props, edits: [{ old_text: 'Adiós', new_text: 'Tschüs' }] });
    expect(fs.readFileSync(path.join(workspace, props.path))).toStrictEqual(
      latin1('# messages\ngreeting=Café\nfarewell=Tschüs\n'),
    );

    expect((await call(client, 'zipfs_read', { session, path: 'data/utf16.txt' })).data).toMatchObject({
      encoding: 'utf-16le',
      content: '\uFEFFtitle=Überblick\nnote=ok\n',
    });
    const binary = await call(client, 'zipfs_grep', { session, pattern: 'Hello', binary: true });
    expect(binary.data.matches).toStrictEqual([
      { file: 'com/example/App.class', line_number: 0, line_content: 'Hello', byte_offset: 31 },
    ]);
    const past = await call(client, 'zipfs_read', { session, path: 'data/crlf.txt', start_line: 9 });
    expect(past.data.error.code).toBe('INVALID_INPUT');
    const truncated = await call(client, 'zipfs_grep', { session, pattern: 'e', max_results: 1 });
    expect(truncated.data.note).toContain('raise max_results: 10');
  });
});
