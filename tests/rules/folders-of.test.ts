/**
 * foldersOf (rules/item-type.ts) skips the parents of an item whose folder is the one of the item before: the same
 * folders as adding every parent of every path, in any order.
 */
import { describe, expect, it } from 'bun:test';
import { foldersOf, type ItemType } from '../../src/rules/item-type.ts';

function everyParent(items: { path: string; type: ItemType }[]): Set<string> {
  const folders = new Set<string>();
  for (const { path, type } of items) {
    if (type === 'dir' && path !== '') folders.add(path);
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) folders.add(parts.slice(0, i).join('/'));
  }
  return folders;
}

describe('foldersOf', () => {
  it('finds every folder whatever the order of the paths', () => {
    const paths = ['a/b/c.txt', 'a/b/d.txt', 'a/bx/e.txt', 'a/b', 'ab/c.txt', 'x.txt', 'a/b/c/d/e.txt', 'q/r.txt'];
    const items = paths.map((path, i) => ({ path, type: (i === 3 ? 'dir' : 'file') as ItemType }));
    for (const order of [items, [...items].reverse(), [...items].sort((x, y) => (x.path < y.path ? -1 : 1))])
      expect([...foldersOf(order)].sort()).toStrictEqual([...everyParent(order)].sort());
    expect(foldersOf([{ path: '', type: 'dir' }]).size).toBe(0); // a root entry is the workspace itself
  });
});
