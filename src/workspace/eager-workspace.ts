/**
 * An eager session's workspace: every entry was extracted at open, so the
 * folder is the whole of it. Nothing is only in the archive: a change needs no
 * preparing, and what tools see is what is on disk.
 */
import { resolveExisting } from '../files/safe-path.ts';
import type { Beneath } from '../files/beneath.ts';
import { readManifest } from '../session/read-manifest.ts';
import type { Session } from '../session/session-store.ts';
import type { Base } from './base.ts';
import { EagerBase } from './eager-base.ts';
import type { ArchivedItem, ExtractAnswer, Seen, Workspace } from './workspace.ts';

export class EagerWorkspace implements Workspace {
  constructor(readonly session: Session) {}

  get root(): string {
    return this.session.contents;
  }

  stat(beneath: Beneath, input: string): Seen {
    const disk = resolveExisting(beneath, input);
    return { relative: disk.relative, disk };
  }

  archivedChildren(): Map<string, ArchivedItem> {
    return new Map();
  }

  fileFor(): Promise<string> {
    return Promise.reject(new Error('an eager workspace has no item only in its archive'));
  }

  withGrepItems<T>(
    _start: string,
    _accept: unknown,
    _limits: unknown,
    search: (items: undefined) => Promise<T>,
  ): Promise<T> {
    return search(undefined);
  }

  async prepareChange(): Promise<void> {}

  prepareFolderOf(): void {}

  removeArchived(): number {
    return 0;
  }

  // Everything was extracted at open.
  async extract(): Promise<ExtractAnswer> {
    return { extracted: 0, bytes: 0, not_extracted: 0 };
  }

  notExtracted(): undefined {
    return undefined;
  }

  base(options: { stamp?: boolean } = {}): Base {
    return new EagerBase(readManifest(this.session.manifest, options));
  }
}
