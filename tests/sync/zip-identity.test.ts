/**
 * A zip's version (sync/zip-identity.ts) across what a session's base does to it: a hard link made or
 * removed (another session's open or close) moves its ctime and is no change; a write that restores
 * the mtime is one.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { changedSince, fileVersion, sameVersion, writtenSince } from '../../src/sync/zip-identity.ts';

let dir: string;
let zip: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zip-identity-'));
  zip = path.join(dir, 'a.zip');
  fs.writeFileSync(zip, 'PK archive bytes');
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

/** Waits until the clock moved on, so a ctime set now differs from one set before. */
function nextTick(): void {
  const start = Date.now();
  while (Date.now() === start) Bun.sleepSync(1);
}

describe("a zip's version", () => {
  it('is the same after a hard link to the zip is made, or removed', () => {
    const before = fileVersion(zip);
    nextTick();
    fs.linkSync(zip, path.join(dir, 'base.zip'));
    expect(fileVersion(zip)).not.toBe(before);
    expect(changedSince(zip, before)).toBe(false);
    const linked = fileVersion(zip);
    nextTick();
    fs.rmSync(path.join(dir, 'base.zip'));
    expect(changedSince(zip, linked)).toBe(false);
  });

  it('changes with a write in place that restores the mtime and size', () => {
    const stats = fs.statSync(zip);
    const before = fileVersion(zip);
    nextTick();
    fs.writeFileSync(zip, 'PK other  bytes!');
    fs.utimesSync(zip, stats.atime, stats.mtime);
    expect(fs.statSync(zip).size).toBe(stats.size);
    expect(changedSince(zip, before)).toBe(true);
  });

  it('changes when the file is replaced or gone', () => {
    const before = fileVersion(zip);
    fs.writeFileSync(path.join(dir, 'next.zip'), 'PK archive bytes');
    fs.renameSync(path.join(dir, 'next.zip'), zip);
    expect(changedSince(zip, before)).toBe(true);
    fs.rmSync(zip);
    expect(changedSince(zip, before)).toBe(true);
    expect(sameVersion(undefined, undefined)).toBe(true);
  });
});

describe('whether a zip was written since its base was recorded', () => {
  it('is not when only a link moved its ctime, and is when a write moved its mtime, or it is gone', () => {
    const recorded = fs.statSync(zip).mtimeMs;
    fs.linkSync(zip, path.join(dir, 'base.zip'));
    expect(writtenSince(fileVersion(zip), recorded)).toBe(false);
    const later = new Date(Date.now() + 5000);
    fs.utimesSync(zip, later, later);
    expect(writtenSince(fileVersion(zip), recorded)).toBe(true);
    expect(writtenSince(fileVersion(path.join(dir, 'gone.zip')), recorded)).toBe(true);
  });
});
