/**
 * Paths inside a workspace, reached without following a link at any
 * component, at the moment they are used.
 *
 * Checking a path and then using it again lets another process swap a folder
 * for a symbolic link in between (an atomic rename exchange), and the use then
 * lands outside the workspace. So every folder on the way is opened as a
 * descriptor with O_NOFOLLOW | O_DIRECTORY, each one relative to the one
 * before, and the last component is named relative to its parent's
 * descriptor: on Linux through `/proc/self/fd/N/name`, whose `N` is the open
 * folder itself, not a path looked up again (the same guarantee as openat(2)
 * with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS, with node:fs calls). Callers
 * never follow that last component: they open it with O_NOFOLLOW, lstat it,
 * unlink or rename it. Walking by descriptors also means no path is ever
 * longer than a folder descriptor plus one name: folders deeper than the
 * system's path limit are reached like any other.
 *
 * Where there is no /proc (macOS, Windows), folders are absolute paths checked
 * with lstat on the way: the same refusals, without the guarantee against a
 * swap between check and use.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError, isSystemError, quote } from '../base/errors.ts';
import { recordFolder, shownPath } from '../base/descriptor-paths.ts';
import { invocation } from '../base/message-marks.ts';
import { NAME_MAX_BYTES, namesDescriptorsInProc } from '../rules/platform.ts';

const { O_RDONLY, O_DIRECTORY = 0, O_NOFOLLOW = 0 } = fs.constants;
const FOLDER_FLAGS = O_RDONLY | O_DIRECTORY | O_NOFOLLOW;

let procFd: boolean | undefined;
/** Whether this system names open descriptors as folders (Linux's /proc/self/fd). */
function byDescriptor(): boolean {
  return (procFd ??= namesDescriptorsInProc() && fs.existsSync('/proc/self/fd'));
}

/** An open folder of the workspace. */
export class Folder {
  private constructor(
    /** Workspace-relative path ('' for the root). */
    readonly relative: string,
    /** A path for system calls on the folder itself. */
    readonly path: string,
    private fd: number | undefined,
  ) {}

  /** Opens `absolute` as a folder without following a link; undefined when it is a link, not a folder, or gone (then lstat says which). */
  static open(absolute: string | Buffer, relative: string): Folder | undefined {
    if (!byDescriptor()) {
      const stats = fs.lstatSync(absolute, { throwIfNoEntry: false });
      return stats?.isDirectory() ? new Folder(relative, absolute.toString(), undefined) : undefined;
    }
    try {
      const fd = fs.openSync(absolute, FOLDER_FLAGS);
      recordFolder(fd, shownPath(absolute.toString()));
      return new Folder(relative, `/proc/self/fd/${fd}`, fd);
    } catch (error) {
      if (isSystemError(error, 'ENOTDIR', 'ELOOP', 'ENOENT')) return undefined; // the caller's lstat tells a link, a file or nothing
      throw error;
    }
  }

  /** The folder's open descriptor, where the platform names folders by descriptor (for statx relative to it). */
  get descriptor(): number | undefined {
    return this.fd;
  }

  /** A path for a system call on the child `name`: only `name` is looked up, in this very folder. */
  child(name: string): string {
    return this.fd === undefined ? path.join(this.path, name) : `${this.path}/${name}`;
  }

  /** The workspace-relative path of the child `name`. */
  childRelative(name: string): string {
    return this.relative === '' ? name : `${this.relative}/${name}`;
  }

  /** Opens the child folder `name`; undefined when it is a link or not a folder (swapped since it was listed). */
  openChild(name: string): Folder | undefined {
    return Folder.open(this.child(name), this.childRelative(name));
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
  }
}

/** A workspace-relative path as its parent folder and last name. */
export interface Place {
  folder: Folder;
  name: string;
  /** The system-call path of the last component (see Folder.child). */
  path: string;
  relative: string;
}

/** Why a path cannot be reached, as the caller should read it. */
function throughLink(whole: string, link: string): ZipfsError {
  return new ZipfsError(
    'PATH_TRAVERSAL',
    `Path ${quote(whole)} goes through ${quote(link)}, a symbolic link; zipfs does not follow links inside a workspace (they can lead outside it). Use the path the link points to.`,
  );
}

function notFound(whole: string): ZipfsError {
  return new ZipfsError(
    'PATH_NOT_FOUND',
    `Path ${quote(whole)} does not exist in the workspace; list what is there with ls or tree.`,
  );
}

/** File systems take at most 255 bytes per name: a longer one cannot exist, and cannot be made. */
const MAX_NAME_BYTES = NAME_MAX_BYTES;

function checkName(name: string, whole: string, create: boolean | undefined): void {
  if (name.length * 3 <= MAX_NAME_BYTES || Buffer.byteLength(name) <= MAX_NAME_BYTES) return;
  if (!create) throw notFound(whole);
  throw new ZipfsError(
    'INVALID_INPUT',
    `Invalid argument path: ${quote(whole)} has a name part of ${Buffer.byteLength(name)} bytes; file systems allow at most ${MAX_NAME_BYTES}. Choose a shorter name.`,
  );
}

/**
 * The folders of one workspace, opened on demand for one operation and kept
 * until `close` (or `keepFoldersOf`): resolving many files of one folder opens it once.
 */
export class Beneath {
  private readonly folders = new Map<string, Folder>();

  constructor(readonly root: string) {
    const folder = Folder.open(root, '');
    if (!folder) {
      throw new ZipfsError(
        'PATH_TRAVERSAL',
        `The workspace folder ${root} is not a folder (a symbolic link or a file was put in its place); zipfs works only on files inside the workspace. Put the folder back, or remove the session with ${invocation('close', { force: true })}.`,
      );
    }
    this.folders.set('', folder);
  }

  /**
   * The folder at `relative`, every component a real folder. With `create`,
   * missing folders are made on the way. `whole` names the path the caller was
   * given, for messages.
   */
  folder(relative: string, options: { create?: boolean; whole?: string } = {}): Folder {
    const known = this.folders.get(relative);
    if (known) return known;
    const cut = relative.lastIndexOf('/');
    const parent = this.folder(cut < 0 ? '' : relative.slice(0, cut), options);
    const name = relative.slice(cut + 1);
    const whole = options.whole ?? relative;
    checkName(name, whole, options.create);
    let folder = this.openIn(parent, name, whole);
    if (!folder && options.create) {
      try {
        fs.mkdirSync(parent.child(name));
      } catch (error) {
        if (!isSystemError(error, 'EEXIST')) throw error;
      }
      folder = this.openIn(parent, name, whole);
    }
    if (!folder) throw notFound(whole);
    this.folders.set(relative, folder);
    return folder;
  }

  /** The child folder `name` of `parent`; undefined when nothing is there; a link or a file there is refused. */
  private openIn(parent: Folder, name: string, whole: string): Folder | undefined {
    const folder = parent.openChild(name);
    if (folder) return folder;
    const stats = fs.lstatSync(parent.child(name), { throwIfNoEntry: false });
    if (!stats) return undefined;
    // Gone at the open and made again before the lstat (an editor's churn): a folder after all.
    if (stats.isDirectory()) return parent.openChild(name);
    if (stats.isSymbolicLink()) throw throughLink(whole, parent.childRelative(name));
    throw new ZipfsError(
      'INVALID_INPUT',
      `Invalid argument path: ${quote(parent.childRelative(name))}, a parent of ${quote(whole)}, is a file, not a folder.`,
    );
  }

  /** `relative`'s parent folder (made when `create`) and last name; '' (the root) has no place. */
  place(relative: string, options: { create?: boolean } = {}): Place {
    const cut = relative.lastIndexOf('/');
    const folder = this.folder(cut < 0 ? '' : relative.slice(0, cut), { ...options, whole: relative });
    const name = relative.slice(cut + 1);
    checkName(name, relative, options.create);
    return { folder, name, path: folder.child(name), relative };
  }

  /** lstat of `relative` (the root included), never following a link; undefined when it is not there. */
  lstat(relative: string): fs.Stats | undefined {
    if (relative === '') return fs.statSync(this.folders.get('')!.path);
    try {
      return fs.lstatSync(this.place(relative).path, { throwIfNoEntry: false });
    } catch (error) {
      if (error instanceof ZipfsError && error.code === 'PATH_NOT_FOUND') return undefined;
      throw error;
    }
  }

  /**
   * Closes every folder that is not on the way to `file`: for loops over many
   * files, one at a time, so descriptors do not pile up (files that come in
   * path order keep reusing the folders they share).
   */
  keepFoldersOf(file: string): void {
    const cut = file.lastIndexOf('/');
    const keep = cut < 0 ? '' : file.slice(0, cut);
    for (const [relative, folder] of this.folders) {
      if (relative === '' || keep === relative || keep.startsWith(`${relative}/`)) continue;
      folder.close();
      this.folders.delete(relative);
    }
  }

  close(): void {
    for (const folder of this.folders.values()) folder.close();
    this.folders.clear();
  }
}

/** Runs `fn` with the workspace's folders, closed after. */
export function withBeneath<T>(root: string, fn: (beneath: Beneath) => T): T {
  const beneath = new Beneath(root);
  try {
    return fn(beneath);
  } finally {
    beneath.close();
  }
}

/** A folder's names. */
export function namesIn(folder: Folder): string[] {
  return fs.readdirSync(folder.path);
}

/** A child's path as bytes: for names that are not UTF-8, which a string path would not reach. */
function childBytes(folder: Folder, name: Buffer): Buffer {
  return Buffer.concat([Buffer.from(`${folder.path}/`), name]);
}

/**
 * Removes `name` from `folder`: a file or link is unlinked (a link, never what
 * it points at); a folder is emptied through its own descriptor first, so a
 * folder swapped for a link during the removal is removed as a link, never
 * followed (the race that made `rm -r` implementations delete outside files).
 */
export function removeBeneath(folder: Folder, name: string | Buffer): void {
  const at = typeof name === 'string' ? folder.child(name) : childBytes(folder, name);
  const stats = fs.lstatSync(at, { throwIfNoEntry: false });
  if (!stats) return;
  if (!stats.isDirectory()) {
    fs.rmSync(at, { force: true });
    return;
  }
  const inner = Folder.open(at, folder.childRelative(name.toString()));
  if (!inner) {
    fs.rmSync(at, { force: true }); // swapped for a link or file since the lstat
    return;
  }
  try {
    // As bytes: a name that is not UTF-8 must go too.
    for (const child of fs.readdirSync(inner.path, { encoding: 'buffer' })) removeBeneath(inner, child);
  } finally {
    inner.close();
  }
  fs.rmdirSync(at);
}
