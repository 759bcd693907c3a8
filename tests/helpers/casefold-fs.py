#!/usr/bin/env python3
"""A case-insensitive, case-preserving view of a folder, mounted with FUSE.

macOS (APFS) and Windows (NTFS) folders are case-insensitive: `README.txt`
and `readme.TXT` name one file, a listing shows the case it was created with,
and renaming `a` to `A` changes only its case. This Linux kernel has no
case-folding ext4, vfat or XFS to test zipfs on, so this passthrough gives a
backing folder those rules (tests/helpers/casefold-mount.ts mounts it):

- every path component is looked up case-insensitively (str.casefold(), the
  Unicode full case folding; an exact match wins, so a backing folder that
  already holds `a` and `A` stays reachable);
- creating, linking or making a folder under a name that matches an existing
  entry finds that entry: open(O_CREAT) opens it and keeps its stored name,
  O_EXCL, mkdir, link and symlink answer EEXIST;
- rename to another case of the same entry renames it to the new case; rename
  onto a different entry that matches replaces it and keeps the replaced
  entry's stored name (APFS: `mv new.txt File.txt` over `file.txt` leaves
  `file.txt`), so an atomic save through any spelling keeps the name;
- listings show stored names.

Names are compared without Unicode normalisation (as NTFS does; APFS would also
match NFC against NFD). Bytes that are not UTF-8 pass through unchanged.

It uses libfuse 2's path-based ("high-level") API through fusepy. That API
gives each spelling its own kernel inode, which is what makes a case-only
rename reach this code at all: with one inode for both spellings the kernel
treats rename(a, A) as a rename onto itself and does nothing. The costs:
- libfuse 2 has no rename flags: renameat2 with RENAME_NOREPLACE,
  RENAME_EXCHANGE or RENAME_WHITEOUT fails with EINVAL (the kernel's answer
  when the file system cannot take flags); plain rename(2) works;
- two spellings of one file are two kernel inodes (st_ino is the backing
  file's for both, through use_ino): a file written through one spelling while
  open through another may show stale size or cached pages until reopened
  (the page cache is dropped on every open; attributes are never cached);
- a folder held open by descriptor and then renamed through another spelling
  of its name is looked up by its old path: names under that descriptor answer
  ENOENT (a rename through the spelling it was opened by is followed);
- every call is a round trip through Python: fine for tests, slow for bulk I/O.

Usage: casefold-fs.py BACKING MOUNTPOINT. Runs in the foreground, prints
"ready" on stdout once the kernel has the mount, unmounts on SIGTERM or
SIGINT, and also when the process that started it dies (so a killed test run
leaves no mount behind).
"""
import codecs
import errno
import os
import signal
import sys
import threading
import time

try:  # Debian's python3-fusepy names the module fusepy; PyPI's fusepy names it fuse
    from fusepy import FUSE, FuseOSError, Operations, fuse_get_context
except ImportError:
    from fuse import FUSE, FuseOSError, Operations, fuse_get_context


# fusepy decodes every path with one codec name: this one keeps bytes that are not UTF-8 as the
# surrogates os.* functions turn back into the same bytes.
def _names_codec(name):
    if name != 'casefold_fs_names':
        return None
    return codecs.CodecInfo(
        name='casefold_fs_names',
        encode=lambda text, errors='strict': codecs.utf_8_encode(text, 'surrogateescape'),
        decode=lambda data, errors='strict': codecs.utf_8_decode(data, 'surrogateescape', True),
    )


codecs.register(_names_codec)

# libfuse 2 passes these tv_nsec values through utimens when flag_utime_omit_ok is set;
# fusepy folds them into nanoseconds since the epoch, where they stay recognisable.
UTIME_NOW = (1 << 30) - 1
UTIME_OMIT = (1 << 30) - 2
STAT_FIELDS = ('st_mode', 'st_ino', 'st_dev', 'st_nlink', 'st_uid', 'st_gid', 'st_size', 'st_blocks', 'st_blksize', 'st_rdev')
IS_ROOT = os.geteuid() == 0


def fold(name):
    return name.casefold()


class CaseFold(Operations):
    use_ns = True
    # Reads, writes and closes of a file whose name was removed get no path (hard_remove below).
    flag_nullpath_ok = 1
    flag_utime_omit_ok = 1
    # Not registered, so libfuse answers ENOSYS and the kernel stops asking (a getxattr per write otherwise).
    getxattr = setxattr = listxattr = removexattr = None
    ioctl = bmap = lock = None

    def __init__(self, backing):
        self.root = os.path.realpath(backing)
        # Check-then-act on names (is there an entry matching "A"? then create "a") must not interleave.
        self.names = threading.RLock()

    # --- lookups ---

    def _match(self, folder, name):
        """The stored name in `folder` that `name` stands for, or None."""
        if os.path.lexists(os.path.join(folder, name)):
            return name
        key = fold(name)
        try:
            stored = os.listdir(folder)
        except OSError:
            return None
        return next((entry for entry in stored if fold(entry) == key), None)

    def _find(self, path):
        """(backing path, found): the stored entry `path` names, or where a new one would go."""
        exact = self.root + path
        if os.path.lexists(exact):
            return exact.rstrip('/') or '/', True
        at = self.root
        parts = [part for part in path.split('/') if part]
        for index, part in enumerate(parts):
            stored = self._match(at, part)
            if stored is None:
                return os.path.join(at, *parts[index:]), False
            at = os.path.join(at, stored)
        return at, True

    def _real(self, path):
        real, found = self._find(path)
        if not found:
            raise FuseOSError(errno.ENOENT)
        return real

    def _absent(self, path):
        """Where a new entry `path` goes; EEXIST when a name matching it is there."""
        real, found = self._find(path)
        if found:
            raise FuseOSError(errno.EEXIST)
        return real

    def _own(self, real):
        """Run as root, new entries belong to the caller, as on a real disk."""
        if IS_ROOT:
            uid, gid, _ = fuse_get_context()
            os.lchown(real, uid, gid)

    # --- attributes ---

    def getattr(self, path, fh=None):
        st = os.fstat(fh.fh) if fh is not None else os.lstat(self._real(path))
        attrs = {key: getattr(st, key) for key in STAT_FIELDS}
        attrs.update(st_atime=st.st_atime_ns, st_mtime=st.st_mtime_ns, st_ctime=st.st_ctime_ns)
        return attrs

    def access(self, path, amode):
        self._real(path)  # permissions: the kernel checks them (default_permissions)
        return 0

    def chmod(self, path, mode):
        os.chmod(self._real(path), mode)

    def chown(self, path, uid, gid):
        os.lchown(self._real(path), uid, gid)

    def truncate(self, path, length, fh=None):
        if fh is not None:
            os.ftruncate(fh.fh, length)
        else:
            os.truncate(self._real(path), length)

    def utimens(self, path, times=None):
        real = self._real(path)
        if times is None:
            os.utime(real, follow_symlinks=False)
            return
        now = None
        current = None
        chosen = []
        for index, value in enumerate(times):
            if value == UTIME_OMIT:
                current = current or os.lstat(real)
                value = (current.st_atime_ns, current.st_mtime_ns)[index]
            elif value == UTIME_NOW:
                now = now or time.time_ns()
                value = now
            chosen.append(value)
        os.utime(real, ns=tuple(chosen), follow_symlinks=False)

    def statfs(self, path):
        sv = os.statvfs(self.root)
        return {key: getattr(sv, key) for key in ('f_bsize', 'f_frsize', 'f_blocks', 'f_bfree', 'f_bavail', 'f_files', 'f_ffree', 'f_favail', 'f_flag', 'f_namemax')}

    # --- names ---

    def create(self, path, mode, fi):
        with self.names:
            real, found = self._find(path)
            if found and fi.flags & os.O_EXCL:
                raise FuseOSError(errno.EEXIST)
            # A name matching an existing entry opens that entry, under its stored name.
            fi.fh = os.open(real, (fi.flags & ~os.O_EXCL) | os.O_CREAT, mode)
            if not found:
                self._own(real)
        return 0

    def mknod(self, path, mode, dev):
        with self.names:
            real = self._absent(path)
            os.mknod(real, mode, dev)
            self._own(real)

    def mkdir(self, path, mode):
        with self.names:
            real = self._absent(path)
            os.mkdir(real, mode)
            self._own(real)

    def symlink(self, target, source):
        # fusepy's order: `target` is the new link's path, `source` what it points to.
        with self.names:
            real = self._absent(target)
            os.symlink(source, real)
            self._own(real)

    def link(self, target, source):
        # fusepy's order: `target` is the new name, `source` the existing file.
        with self.names:
            existing = self._real(source)
            os.link(existing, self._absent(target))

    def readlink(self, path):
        return os.readlink(self._real(path))

    def unlink(self, path):
        with self.names:
            os.unlink(self._real(path))

    def rmdir(self, path):
        with self.names:
            os.rmdir(self._real(path))

    def rename(self, old, new):
        with self.names:
            source = self._real(old)
            target, found = self._find(new)
            if found and target == source:
                # Another spelling of the same entry: a case-only rename (a no-op when nothing differs).
                os.rename(source, os.path.join(os.path.dirname(source), os.path.basename(new)))
            else:
                # Onto another entry that matches, this replaces it atomically and keeps its stored name (as APFS does).
                os.rename(source, target)

    # --- files ---

    def open(self, path, fi):
        fi.fh = os.open(self._real(path), fi.flags)
        return 0

    def read(self, path, size, offset, fh):
        return os.pread(fh.fh, size, offset)

    def write(self, path, data, offset, fh):
        return os.pwrite(fh.fh, data, offset)

    def flush(self, path, fh):
        return 0

    def fsync(self, path, datasync, fh):
        (os.fdatasync if datasync else os.fsync)(fh.fh)

    def release(self, path, fh):
        os.close(fh.fh)

    # --- folders (the handle is a descriptor of the backing folder, so a listing or fsync follows the folder) ---

    def opendir(self, path):
        return os.open(self._real(path), os.O_RDONLY | os.O_DIRECTORY)

    def readdir(self, path, fh):
        return ['.', '..'] + os.listdir(fh)

    def fsyncdir(self, path, datasync, fh):
        os.fsync(fh)

    def releasedir(self, path, fh):
        os.close(fh)

    def init(self, path):
        # The kernel sends INIT once the mount exists: the starter waits for this line.
        print('ready', flush=True)


def unmount_when_orphaned(parent):
    """SIGTERM to ourselves (libfuse unmounts on it) once the process that started us is gone."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os.kill(os.getpid(), signal.SIGTERM)


def main():
    if len(sys.argv) != 3:
        sys.exit('usage: casefold-fs.py BACKING MOUNTPOINT')
    backing, mountpoint = sys.argv[1], sys.argv[2]
    if not os.path.isdir(backing):
        sys.exit(f'casefold-fs: {backing} is not a folder')
    os.umask(0)  # the kernel has applied the caller's umask to every mode it passes
    threading.Thread(target=unmount_when_orphaned, args=(os.getppid(),), daemon=True).start()
    options = dict(
        foreground=True,
        raw_fi=True,
        encoding='casefold_fs_names',
        fsname=f'casefold-fs.{os.getpid()}',  # the pid lets a later run tell a stale mount (its server dead) from a live one
        subtype='casefold',
        use_ino=True,  # st_ino is the backing file's, equal for every spelling
        readdir_ino=True,
        hard_remove=True,  # no .fuse_hidden files where an open file was removed: zipfs would see them
        entry_timeout=0,  # names are never cached: another spelling's rename must be seen at once
        negative_timeout=0,
        attr_timeout=0,
        default_permissions=True,  # the kernel checks permission bits, as on a disk
        big_writes=True,
        max_write=131072,
    )
    if IS_ROOT:
        options['allow_other'] = True  # tests that drop root to nobody reach the mount too
    FUSE(CaseFold(backing), mountpoint, **options)


if __name__ == '__main__':
    main()
