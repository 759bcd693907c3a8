/** Archives the end-to-end tests share, built in memory with fflate (deterministic bytes). */
import { strToU8, zipSync, type Zippable } from 'fflate';

export const MTIME = new Date('2025-01-30T12:00:00Z');

/** Bytes 0..255 repeated: not valid UTF-8, so reads come back as base64. */
export function binaryBytes(length: number): Uint8Array {
  return Uint8Array.from({ length }, (_, i) => (i * 7 + 3) & 0xff);
}

export const REPORT_FILES = {
  'README.txt': 'Quarterly report\n',
  'data/config.json': '{\n  "debug": true,\n  "region": "emea"\n}\n',
  'data/input.csv': 'id,value\n1,10\n2,20\n',
  'data/output.csv': 'id,total\n1,30\n',
} as const;

/** A small report archive: text, a binary file, nested folders, an empty folder. */
export function reportsZip(): Uint8Array {
  const tree: Zippable = {
    'README.txt': strToU8(REPORT_FILES['README.txt']),
    data: {
      'config.json': strToU8(REPORT_FILES['data/config.json']),
      'input.csv': strToU8(REPORT_FILES['data/input.csv']),
      'output.csv': strToU8(REPORT_FILES['data/output.csv']),
      archive: { '2024.csv': strToU8('id,value\n') },
    },
    'logo.png': [binaryBytes(3000), { level: 0 }],
    empty: {},
  };
  return zipSync(tree, { mtime: MTIME });
}

/** An archive with a symlink entry pointing out of the folder. */
export function symlinkZip(): Uint8Array {
  return zipSync(
    {
      'notes.txt': strToU8('hello\n'),
      escape: [strToU8('../../etc/passwd'), { os: 3, attrs: (0o120777 << 16) >>> 0 }],
    },
    { mtime: MTIME },
  );
}
