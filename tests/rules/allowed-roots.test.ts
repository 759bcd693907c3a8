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

describe('URL roots: the remote archives an MCP client may reach', () => {
  const roots = new AllowedRoots(['https://dav.example:8443/share/', 's3://bucket/reports'], { from: '--root' });

  it('allows a URL under a URL root, at a path boundary, and no other', () => {
    expect(roots.allows('https://dav.example:8443/share/q4.zip')).toBe(true);
    expect(roots.allows('HTTPS://DAV.example:8443/share/sub/q4.zip')).toBe(true);
    expect(roots.allows('s3://bucket/reports/q4.zip?endpoint=http://127.0.0.1:9000')).toBe(true);
    expect(roots.allows('s3://bucket/reports-old/q4.zip')).toBe(false);
    expect(roots.allows('https://dav.example:8443/share/../private/q4.zip')).toBe(false);
    expect(roots.allows('https://dav.example/share/q4.zip')).toBe(false); // another port is another server
    expect(roots.allows('http://dav.example:8443/share/q4.zip')).toBe(false);
  });

  it('never lets a folder root allow a URL, or a URL root a path', () => {
    expect(new AllowedRoots([dir], { from: '--root' }).allows('https://dav.example/a.zip')).toBe(false);
    expect(roots.allows(path.join(dir, 'work', 'a.zip'))).toBe(false);
    expect(() => roots.assert('https://elsewhere.example/a.zip')).toThrow(/URL roots/);
  });

  it('reads URL roots from ZIPFS_ROOTS beside folders, ports and all', async () => {
    const { rootsConfig } = await import('../../src/mcp/roots.ts');
    const list = ['https://h.example:8443/dav/', path.join(dir, 'work'), 's3://bucket/p/'].join(path.delimiter);
    expect(rootsConfig([], { ZIPFS_ROOTS: list }, dir).configured).toStrictEqual([
      'https://h.example:8443/dav/',
      path.join(dir, 'work'),
      's3://bucket/p/',
    ]);
  });
});
