/**
 * Names that a terminal would act on: an entry or file name may hold escape sequences, newlines,
 * tabs, C1 controls, line separators and bidi overrides. Human output shows such a name quoted as
 * git does ("a\033[31mb"), so no line can be hidden, faked or reordered; --json and MCP carry it exactly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import path from 'node:path';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { call, connect } from '../helpers/mcp-client.ts';
import { rawZip } from '../helpers/raw-zip.ts';

/** Each odd name in the archive, with how a terminal must show it. */
const ENTRIES: [string, string][] = [
  ['red\x1b[31mtext.txt', '"red\\033[31mtext.txt"'],
  ['line\nbreak.txt', '"line\\nbreak.txt"'],
  ['tab\there.txt', '"tab\\there.txt"'],
  ['rtl\u202eabc.txt', '"rtl\\342\\200\\256abc.txt"'], // RIGHT-TO-LEFT OVERRIDE
  ['iso\u2066late.txt', '"iso\\342\\201\\246late.txt"'], // LEFT-TO-RIGHT ISOLATE
  ['csi\u009b2J.txt', '"csi\\302\\2332J.txt"'], // the one-byte CSI of C1
  ['del\x7f.txt', '"del\\177.txt"'],
  ['para\u2029graph.txt', '"para\\342\\200\\251graph.txt"'],
  ['bell\x07and\rcr.txt', '"bell\\aand\\rcr.txt"'],
  ['say "hi".txt', '"say \\"hi\\".txt"'], // no control character, but quotes must not pass for the quoting
];
/** Made in the workspace by another program (Linux allows any byte but / and NUL). */
const ADDED: [string, string][] = [
  ['new\x1b[2Kb.txt', '"new\\033[2Kb.txt"'],
  ['fake\nM README.txt', '"fake\\nM README.txt"'],
];
/** The entry the workspace changes, for status and diff. */
const CHANGED = ENTRIES[1]!;
const FOLDER = 'dir\x1b[7m';
const PLAIN = 'plain-é.txt'; // not Latin-1 safe, but nothing a terminal acts on: shown as it is

/** What no human output may hold: every unsafe character but the newline that ends its own lines. */
const RAW_UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const box = sandbox();
let zip: string;
let root: string;
beforeAll(() => {
  const entries = [
    ...ENTRIES.map(([name]) => ({ name, data: 'needle\n' })),
    { name: `${FOLDER}/inner.txt`, data: 'x' },
    { name: PLAIN, data: 'needle\n' },
  ];
  // The zip's own path is a name too: sessions and sync show it.
  zip = writeZip(box.dir, 'odd\x1b[2K.zip', rawZip(entries, { comment: 'comment\x1b[2K\nfaked line' }));
  root = box.run(['open', zip, '--json']).json.workspace_path;
  for (const [name] of ADDED) fs.writeFileSync(path.join(root, name), 'needle\n');
  fs.writeFileSync(path.join(root, CHANGED[0]), 'changed\n');
});
afterAll(() => box.cleanup());

/** Runs zipfs for a person: stdout and stderr together, which must hold nothing a terminal acts on. */
function human(args: string[]): string {
  const result = box.run(args);
  const shown = result.stdout + result.stderr;
  expect(shown, `zipfs ${args.join(' ')}`).not.toMatch(RAW_UNSAFE);
  return shown;
}

describe('names on a terminal', () => {
  it('inspect shows every odd entry name quoted and escaped, and the comment too', () => {
    const shown = human(['inspect', zip]);
    for (const [, quoted] of ENTRIES) expect(shown).toContain(`  ${quoted}\n`);
    expect(shown).toContain(`  ${PLAIN}\n`);
    expect(shown).toContain('comment: "comment\\033[2K\\nfaked line"');
  });

  it('ls, ls -r and tree show them quoted, one line each', () => {
    const listed = human(['ls']);
    for (const [, quoted] of [...ENTRIES, ...ADDED]) expect(listed).toContain(`  ${quoted}\n`);
    expect(listed).toContain('  "dir\\033[7m/"\n');
    expect(human(['ls', '-r'])).toContain('  "dir\\033[7m/inner.txt"\n');
    const tree = human(['tree']);
    for (const [, quoted] of ENTRIES) expect(tree).toContain(`── ${quoted}\n`);
    expect(tree).toMatch(/── "dir\\033\[7m\/"\n.*── inner\.txt\n/);
    expect(tree).toContain(`── ${PLAIN}\n`);
  });

  it('grep shows the file of each match quoted', () => {
    const shown = human(['grep', 'needle']);
    for (const [name, quoted] of ENTRIES) if (name !== CHANGED[0]) expect(shown).toContain(`${quoted}:1:needle\n`);
    expect(human(['grep', '2Kb', '--names-only'])).toBe(`${ADDED[0]![1]}\n`);
  });

  it('status, diff and diff --stat show changed and added names quoted, and no faked line', () => {
    const status = human(['status']);
    expect(status).toContain(`M ${CHANGED[1]}\n`);
    for (const [, quoted] of ADDED) expect(status).toContain(`A ${quoted}`);
    expect(status).not.toContain('\nM README.txt');
    // A FIFO sync refuses: status's note on stderr names it in quotes, as messages do.
    const fifo = path.join(root, 'pipe\x1b[2K');
    expect(Bun.spawnSync(['mkfifo', fifo]).exitCode).toBe(0);
    expect(human(['status'])).toContain('zipfs: sync will refuse "pipe\\033[2K": it is a FIFO');
    fs.rmSync(fifo);
    const diff = human(['diff']);
    expect(diff).toContain(
      'diff --git "a/line\\nbreak.txt" "b/line\\nbreak.txt"\n--- "a/line\\nbreak.txt"\n+++ "b/line\\nbreak.txt"\n',
    );
    expect(diff).toContain('+++ "b/new\\033[2Kb.txt"\n');
    expect(human(['diff', '--stat'])).toContain(`A ${ADDED[0]![1]}  +1 -0\n`);
  });

  it('sessions, sync, mv, delete and errors show names and paths quoted', () => {
    expect(human(['sessions'])).toContain(JSON.stringify(zip).replace('\\u001b', '\\033'));
    expect(human(['sync'])).toContain(
      `Previous archive kept as ${JSON.stringify(`${zip}.bak`).replace('\\u001b', '\\033')}`,
    );
    expect(human(['mv', ADDED[0]![0], 'moved\x1b[1m.txt'])).toBe(`Moved ${ADDED[0]![1]} to "moved\\033[1m.txt".\n`);
    expect(human(['delete', 'moved\x1b[1m.txt'])).toBe('Deleted "moved\\033[1m.txt".\n');
    expect(human(['read', 'gone\x1b[2K\nzipfs: all is well'])).toContain(
      'Path "gone\\033[2K\\nzipfs: all is well" does not exist',
    );
  });

  it('keeps names exact in --json', () => {
    const names = box.run(['ls', '--json']).json.entries.map((e: { name: string }) => e.name);
    for (const [name] of ENTRIES) expect(names).toContain(name);
    expect(box.run(['inspect', zip, '--json']).json.entries.map((e: { name: string }) => e.name)).toContain(
      ENTRIES[0]![0],
    );
    expect(box.run(['grep', 'needle', '--json']).json.matches.map((m: { file: string }) => m.file)).toContain(
      ENTRIES[3]![0],
    );
    expect(box.run(['sessions', '--json']).json.sessions[0].source_path).toBe(zip);
    // tree's drawing is text with one line per item on every surface: its names are quoted in JSON too.
    expect(box.run(['tree', '--json']).json.tree).toContain(`── ${ENTRIES[0]![1]}\n`);
  });

  it('keeps names exact over MCP', async () => {
    const mcp = await connect(box.home);
    try {
      const listed = await call(mcp.client, 'zipfs_ls', {});
      for (const [name] of ENTRIES) expect(listed.data.entries.map((e: { name: string }) => e.name)).toContain(name);
    } finally {
      await mcp.close();
    }
  });
});
