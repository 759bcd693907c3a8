/**
 * What a file that is not a zip is, from its first bytes, so the error can
 * say "this is a gzip file" instead of talking about end records: people hand
 * zipfs a .tar.gz or a .7z expecting it to cope.
 */
const KINDS: { name: string; tool: string; matches(head: Uint8Array): boolean }[] = [
  {
    name: 'a gzip file (a .tar.gz or .gz?)',
    tool: 'tar -xzf or gunzip',
    matches: (h) => h[0] === 0x1f && h[1] === 0x8b,
  },
  {
    name: 'a 7z archive',
    tool: '7z x',
    matches: (h) => [0x37, 0x7a, 0xbc, 0xaf, 0x27, 0x1c].every((b, i) => h[i] === b),
  },
  {
    name: 'a RAR archive',
    tool: 'unrar or 7z x',
    matches: (h) => [0x52, 0x61, 0x72, 0x21, 0x1a, 0x07].every((b, i) => h[i] === b),
  },
  {
    name: 'an xz file (a .tar.xz?)',
    tool: 'tar -xJf or unxz',
    matches: (h) => [0xfd, 0x37, 0x7a, 0x58, 0x5a, 0x00].every((b, i) => h[i] === b),
  },
  {
    name: 'a bzip2 file (a .tar.bz2?)',
    tool: 'tar -xjf or bunzip2',
    matches: (h) => h[0] === 0x42 && h[1] === 0x5a && h[2] === 0x68,
  },
  {
    name: 'a zstd file (a .tar.zst?)',
    tool: 'tar --zstd -xf or unzstd',
    matches: (h) => [0x28, 0xb5, 0x2f, 0xfd].every((b, i) => h[i] === b),
  },
  {
    name: 'a tar archive',
    tool: 'tar -xf',
    matches: (h) => h.length >= 262 && String.fromCharCode(...h.subarray(257, 262)) === 'ustar',
  },
];

/**
 * "a gzip file (a .tar.gz or .gz?)" and the tool that opens it, or undefined when the bytes are no format zipfs knows.
 */
export function otherFormat(head: Uint8Array): { name: string; tool: string } | undefined {
  return KINDS.find((kind) => kind.matches(head));
}
