/** The words of `zipfs mcp`: --http, --allow-remote, --root (repeatable) and --read-only, and nothing else. */
import { describe, expect, it } from 'bun:test';
import { parseMcpWords } from '../../src/cli/mcp-mode.ts';

describe('zipfs mcp words', () => {
  it('takes --root repeated, in both spellings, beside the other flags', () => {
    expect(parseMcpWords(['--root', '/a', '--read-only', '--root=/b c', '--http', '8080'])).toStrictEqual({
      http: '8080',
      allowRemote: false,
      roots: ['/a', '/b c'],
      readOnly: true,
    });
    // An MCP Bundle's folder list: one --root, then a word per folder.
    expect(parseMcpWords(['--root', '/a', '/b', '--read-only']).roots).toStrictEqual(['/a', '/b']);
    expect(parseMcpWords([])).toStrictEqual({ allowRemote: false, roots: [], readOnly: false });
  });

  it.each([[['stdio']], [['--root']], [['--root=']], [['--http']], [['--read-only', 'yes']]])(
    'refuses %p with INVALID_INPUT',
    (argv) => {
      expect(() => parseMcpWords(argv)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    },
  );
});
