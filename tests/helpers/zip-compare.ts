/** Reads archives at the byte level, to prove what sync copied is byte-identical. */
import { expect } from 'bun:test';
import fs from 'node:fs';
import { has } from './tools.ts';
import {
  FileSource,
  locateEntryData,
  readCentralDirectory,
  readEntryData,
  type ZipEntry,
} from '../../src/zip/index.ts';

export interface RawView {
  entry: ZipEntry;
  /** Local header and compressed data, as stored. */
  local: Buffer;
  /** The central-directory record with its 4-byte offset field zeroed. */
  central: Buffer;
  content: Buffer;
}

export function rawEntries(file: string): { comment: string; entries: Map<string, RawView>; order: string[] } {
  const source = new FileSource(file);
  try {
    const directory = readCentralDirectory(source);
    const entries = new Map<string, RawView>();
    for (const entry of directory.entries) {
      const span = locateEntryData(source, entry);
      const local = Buffer.from(source.read(entry.localHeaderOffset, span.dataEnd - entry.localHeaderOffset));
      const central = Buffer.from(source.read(entry.centralOffset, entry.centralLength));
      if (central.readUInt32LE(42) !== 0xffffffff) central.writeUInt32LE(0, 42);
      const content = entry.isDirectory ? Buffer.alloc(0) : Buffer.from(readEntryData(source, entry));
      entries.set(entry.name, { entry, local, central, content });
    }
    return { comment: directory.comment, entries, order: directory.entries.map((e) => e.name) };
  } finally {
    source.close();
  }
}

/** Python's zipfile: names and contents (hex), or the error it raised. */
export function pythonRead(file: string): { names: string[]; contents: Record<string, string>; comment: string } {
  const script = `
import sys, zipfile, json
with zipfile.ZipFile(sys.argv[1]) as z:
    bad = z.testzip()
    if bad: raise SystemExit('bad entry ' + bad)
    contents = {i.filename: z.read(i).hex() for i in z.infolist() if not i.is_dir()}
    print(json.dumps({'names': z.namelist(), 'contents': contents, 'comment': z.comment.decode('utf-8', 'replace')}))
`;
  const result = Bun.spawnSync(['python3', '-c', script, file]);
  if (result.exitCode !== 0) throw new Error(`python zipfile failed: ${result.stderr.toString()}`);
  return JSON.parse(result.stdout.toString());
}

/** Info-ZIP's verdicts: `unzip -t` and `zipinfo`. */
export function infoZip(file: string): { test: number; testOutput: string; zipinfo: string } {
  const test = Bun.spawnSync(['unzip', '-t', file]);
  const info = Bun.spawnSync(['zipinfo', file]);
  return {
    test: test.exitCode ?? -1,
    testOutput: test.stdout.toString() + test.stderr.toString(),
    zipinfo: info.stdout.toString(),
  };
}

export function sha(file: string): string {
  return new Bun.CryptoHasher('sha256').update(fs.readFileSync(file)).digest('hex');
}

/**
 * The reader a test's whole-archive check uses: `unzip -t` where installed, else Python's zipfile
 * (every entry read, CRCs checked), else none. A machine without unzip must pass the suite, and a
 * check must not pass silently there: tests using expectReferenceClean append REFERENCE_WHY to
 * their names, so what checked (or that nothing did) shows in the run.
 */
export const REFERENCE: 'unzip' | 'python' | undefined = has('unzip') ? 'unzip' : has('python3') ? 'python' : undefined;
export const REFERENCE_WHY =
  REFERENCE === 'unzip'
    ? ''
    : REFERENCE === 'python'
      ? " (whole-archive check by Python's zipfile: no unzip)"
      : ' (whole-archive check skipped: needs unzip or python3; .ci/run installs them)';

/** The reference reader finds the whole archive clean (unzip -t exits 0; Python reads every entry). */
export function expectReferenceClean(file: string): void {
  if (REFERENCE === 'unzip') {
    const verdict = infoZip(file);
    expect(verdict.test, verdict.testOutput).toBe(0);
  } else if (REFERENCE === 'python') {
    expect(() => pythonRead(file)).not.toThrow();
  }
}
