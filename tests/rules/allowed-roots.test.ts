/** Where a path really is, and the roots' verdict, on this machine's file system (issue 33). */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AllowedRoots, realPlace } from '../../src/rules/allowed-roots.ts';

let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-roots-')));
  fs.mkdirSync(path.join(dir, 'work'));
  fs.mkdirSync(path.join(dir, 'outside'));
  fs.symlinkSync(path.join(dir, 'outside'), path.join(dir, 'work', 'linked'));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('realPlace', () => {
  it('resolves links in the folders of a path that does not exist yet', () => {
    expect(realPlace(path.join(dir, 'work', 'linked', 'new', 'a.zip'))).toBe(path.join(dir, 'outside', 'new', 'a.zip'));
  });

  it('follows a dangling link to where a create would write', () => {
    fs.symlinkSync('../outside/later.zip', path.join(dir, 'work', 'dangling.zip'));
    expect(realPlace(path.join(dir, 'work', 'dangling.zip'))).toBe(path.join(dir, 'outside', 'later.zip'));
  });

  it('resolves `..` as open does, before links', () => {
    expect(realPlace(path.join(dir, 'work', 'linked', '..', 'a.zip'))).toBe(path.join(dir, 'work', 'a.zip'));
  });
});

describe('AllowedRoots', () => {
  it('says which roots there are and how to add one when it refuses', () => {
    const roots = new AllowedRoots([path.join(dir, 'work')], { from: '--root' });
    expect(roots.allows(path.join(dir, 'work', 'a.zip'))).toBe(true);
    expect(roots.allows(path.join(dir, 'work', 'linked', 'a.zip'))).toBe(false);
    expect(() => roots.assert(path.join(dir, 'outside', 'a.zip'))).toThrow(
      expect.objectContaining({
        code: 'PERMISSION_DENIED',
        message: expect.stringContaining(`outside the folders this MCP server may use ("${dir}/work": --root)`),
      }),
    );
  });

  it('allows nothing without roots, and says why', () => {
    const none = new AllowedRoots([], { from: '', none: 'no root given' });
    expect(none.allows(path.join(dir, 'work', 'a.zip'))).toBe(false);
    expect(() => none.assert('/x.zip')).toThrow(/it has none \(no root given\)/);
  });
});
