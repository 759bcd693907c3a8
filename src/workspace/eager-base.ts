/**
 * An eager session's base: its manifest lists every entry, each extracted into
 * the folder, so every one is compared and none is untouched; open's limits are
 * on the whole archive, and the session keeps nothing beside its manifest.
 */
import type { EntryRecord, ManifestLines } from '../session/manifest.ts';
import type { PackedDirectory } from '../zip/index.ts';
import type { Base, OnDisk, WrittenChecks } from './base.ts';
import { assertReopenable } from './reopen-check.ts';

export class EagerBase implements Base {
  readonly limitsOn = 'archive';
  readonly copiesChecked = 'all';
  readonly forceable = true;

  constructor(private readonly manifest: ManifestLines) {}

  get record() {
    return this.manifest.session;
  }

  get stamp() {
    return this.manifest.stamp;
  }

  get count(): number {
    return this.manifest.entries.length;
  }

  compared(): EntryRecord[] {
    return this.manifest.entries;
  }

  untouchedStoreFolders(): boolean {
    return false;
  }

  untouchedHaveFolder(): boolean {
    return false;
  }

  whole(): EntryRecord[] {
    return this.manifest.entries;
  }

  onDisk(): OnDisk | undefined {
    return undefined;
  }

  forEachUntouched(): void {}

  verify(): void {}

  release(): void {}

  assertForceable(): void {}

  checkWritten(directory: PackedDirectory, _next: unknown, { limits, namesKept }: WrittenChecks): undefined {
    assertReopenable(directory, limits, namesKept);
    return undefined;
  }
}
