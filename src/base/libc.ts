/**
 * Linux calls that node:fs does not offer or makes slow, called through
 * bun:ffi: copy_file_range (the kernel copies unchanged byte ranges of
 * an archive without passing them through this process), sync_file_range
 * (starts writing a new archive to disk while it is still being written, so
 * the final fsync has little left to wait for), and statx relative to an open
 * folder (a workspace scan stats thousands of files; node's lstat costs about
 * twice as much per call), and local time from the C library (localtime_r,
 * mktime), which reads the zone file in microseconds where the runtime's first
 * local-time Date sets up ICU's time zones in 4-5 ms, once per process: a
 * tenth of a small sync.
 *
 * Elsewhere (macOS, Windows, a libc that cannot be loaded) `libc()` is
 * undefined and callers use node:fs and Date. ZIPFS_NATIVE=0 forces that path.
 */
import type { Pointer } from 'bun:ffi';
import { choiceSetting, readSetting } from './env-setting.ts';

/** Where statAt puts each field in its `out`: the times in milliseconds computed as node:fs computes them. */
export const STAT_FIELDS = { mode: 0, size: 1, ino: 2, nlink: 3, mtimeMs: 4, ctimeMs: 5, count: 6 } as const;

/** A local calendar time: month 1-12, fields possibly out of range for mktime to carry over, as Date does. */
export interface LocalTime {
  year: number;
  month: number;
  day: number;
  hours: number;
  minutes: number;
  seconds: number;
}

export interface Libc {
  /**
   * Copies up to `length` bytes between two files inside the kernel; returns the count, or -1 when this pair of files
   * cannot (then copy another way).
   */
  copyFileRange(inFd: number, inOffset: number, outFd: number, outOffset: number, length: number): number;
  /**
   * Copies up to `length` bytes (at most COPY_THROUGH_BYTES) by a read and a write through a buffer of the C
   * library's: none of the runtime's heap, so a sync's copy adds nothing to what sets off its collections. Returns
   * the count, 0 where the source ends, -1 on any failure (then copy the portable way, which says what failed).
   */
  copyThrough(inFd: number, inOffset: number, outFd: number, outOffset: number, length: number): number;
  /** Asks the kernel to start writing a range of the file to disk, without waiting. */
  startWriteback(fd: number, offset: number, length: number): void;
  /**
   * lstat of `name` inside the open folder `dirFd`, into `out` (STAT_FIELDS: no object per file, where a scan stats
   * thousands); false when it cannot be stated (gone, too long a name).
   */
  statAt(dirFd: number, name: string, out: Float64Array): boolean;
  /**
   * statAt of the NUL-terminated name at byte `at` of `names` (a folder's entries as readEntries put them), with no
   * string made or encoded: for a walk that compares names as bytes.
   */
  statEntry(dirFd: number, names: Uint8Array, at: number, out: Float64Array): boolean;
  /**
   * The open folder's entries from its start (getdents64: linux_dirent64 records, `.` and `..` among them) into
   * `into`, which must have storage of its own (made from an ArrayBuffer); 'start' begins again at the first entry,
   * else reading goes on where the last call left off. The byte count, 0 at the end, -1 on an error.
   */
  readEntries(dirFd: number, into: Uint8Array, from: 'start' | 'next'): number;
  /** The local time at `seconds` since the epoch. */
  localTime(seconds: number): LocalTime;
  /**
   * Seconds since the epoch of a local time from 1970 on (daylight saving decided by the zone); NaN when mktime fails.
   */
  fromLocalTime(time: LocalTime): number;
}

const AT_SYMLINK_NOFOLLOW = 0x100;
const STATX_BASIC_STATS = 0x7ff;
const SYNC_FILE_RANGE_WRITE = 2;
const SEEK_SET = 0;
/** copyThrough's step: 1 MiB copied 122 MiB in 38 ms where 256 KiB took 45 (and 4-8 MiB 2-3 times as long). */
export const COPY_THROUGH_BYTES = 1 << 20;
/** struct statx offsets: the same on every Linux architecture. */
const STATX = { size: 256, nlink: 16, mode: 28, ino: 32, fileSize: 40, ctime: 96, mtime: 112 } as const;
/** The same offsets counted in 32-bit words (stx_mode is the low half of its word). */
const WORD = { nlink: 4, mode: 7, ino: 8, fileSize: 10, ctime: 24, mtime: 28 } as const;
const NAME_BYTES = 4096;
/**
 * struct tm: nine ints, then (64-bit) tm_gmtoff and tm_zone; the int fields' offsets are the same in glibc and musl.
 */
const TM = { size: 64, sec: 0, min: 4, hour: 8, mday: 12, mon: 16, year: 20, isdst: 32 } as const;

/**
 * ZIPFS_NATIVE: 1 (the default) makes these calls (and zip/native-inflate.ts's) where they can be loaded, 0 keeps to
 * node:fs, Date and node:zlib.
 */
export const NATIVE_SETTING = choiceSetting({
  env: 'ZIPFS_NATIVE',
  default: '1',
  choices: ['0', '1'],
  takes: '0 (node:fs, Date and node:zlib only) or 1 (the Linux calls through bun:ffi)',
  description:
    'On Linux, 0 uses node:fs, Date and node:zlib instead of statx, copy_file_range, sync_file_range, localtime_r ' +
    "and the system's libdeflate or zlib",
});

let loaded: Libc | null | undefined;

export function libc(): Libc | undefined {
  // Checked on every platform, so a malformed value is refused on macOS too; refused again on the next call.
  if (loaded === undefined)
    loaded = readSetting(process.env, NATIVE_SETTING) === '1' && process.platform === 'linux' ? load() : null;
  return loaded ?? undefined;
}

/** What `make` returns, or undefined where it throws. */
function optional<T>(make: () => T): T | undefined {
  try {
    return make();
  } catch {
    return undefined;
  }
}

function load(): Libc | null {
  try {
    const { dlopen, FFIType, ptr } = require('bun:ffi') as typeof import('bun:ffi');
    const { symbols } = dlopen('libc.so.6', {
      copy_file_range: {
        args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.u32],
        returns: FFIType.i64,
      },
      sync_file_range: { args: [FFIType.i32, FFIType.i64, FFIType.i64, FFIType.u32], returns: FFIType.i32 },
      pread: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i64], returns: FFIType.i64 },
      pwrite: { args: [FFIType.i32, FFIType.ptr, FFIType.u64, FFIType.i64], returns: FFIType.i64 },
      malloc: { args: [FFIType.u64], returns: FFIType.ptr },
      statx: { args: [FFIType.i32, FFIType.ptr, FFIType.i32, FFIType.u32, FFIType.ptr], returns: FFIType.i32 },
      tzset: { args: [], returns: FFIType.void },
      localtime_r: { args: [FFIType.ptr, FFIType.ptr], returns: FFIType.ptr },
      mktime: { args: [FFIType.ptr], returns: FFIType.i64 },
    });
    symbols.tzset(); // localtime_r need not read TZ itself
    // Apart: a C library older than glibc 2.30 has no getdents64, and the calls above need none.
    const folders = optional(() =>
      dlopen('libc.so.6', {
        getdents64: { args: [FFIType.i32, FFIType.ptr, FFIType.u64], returns: FFIType.i64 },
        lseek: { args: [FFIType.i32, FFIType.i64, FFIType.i32], returns: FFIType.i64 },
      }),
    )?.symbols;
    // Buffers made from an ArrayBuffer have storage of their own that the collector never moves,
    // so their addresses can be taken once.
    const offsets = new BigInt64Array(new ArrayBuffer(16));
    const [inOffsetPtr, outOffsetPtr] = [ptr(offsets, 0), ptr(offsets, 8)];
    // struct statx read as 32-bit words, little-endian as every platform Bun runs on: a DataView's calls cost a
    // scan of 12,500 files some milliseconds more before the runtime compiles them.
    const statWords = new Uint32Array(new ArrayBuffer(STATX.size));
    const statSigned = new Int32Array(statWords.buffer);
    const statPtr = ptr(statWords);
    const name = new Uint8Array(new ArrayBuffer(NAME_BYTES));
    const namePtr: Pointer = ptr(name);
    const encoder = new TextEncoder();
    const tm = new DataView(new ArrayBuffer(TM.size));
    const tmPtr = ptr(tm);
    const clock = new BigInt64Array(new ArrayBuffer(8));
    const clockPtr = ptr(clock);
    // 64-bit fields as two 32-bit halves: a BigInt per field cost a scan of 12,500 files ~4 ms, and every value
    // here (sizes, inodes, seconds) is below 2^53.
    const u64 = (word: number) => statWords[word]! + statWords[word + 1]! * 2 ** 32;
    const millis = (word: number) =>
      (statWords[word]! + statSigned[word + 1]! * 2 ** 32) * 1000 + statWords[word + 2]! / 1e6;
    /** statx of the name at `at` into `out`. */
    const statInto = (dirFd: number, at: Pointer, out: Float64Array) => {
      if (symbols.statx(dirFd, at, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS, statPtr) !== 0) return false;
      out[STAT_FIELDS.mode] = statWords[WORD.mode]! & 0xffff;
      out[STAT_FIELDS.size] = u64(WORD.fileSize);
      out[STAT_FIELDS.ino] = u64(WORD.ino);
      out[STAT_FIELDS.nlink] = statWords[WORD.nlink]!;
      out[STAT_FIELDS.mtimeMs] = millis(WORD.mtime);
      out[STAT_FIELDS.ctimeMs] = millis(WORD.ctime);
      return true;
    };

    // Made on first use and kept for the process: one step of copyThrough.
    let through: Pointer | null = null;

    return {
      copyThrough(inFd, inOffset, outFd, outOffset, length) {
        through ??= symbols.malloc(COPY_THROUGH_BYTES) as Pointer | null;
        if (through === null) return -1;
        const n = Number(symbols.pread(inFd, through, Math.min(length, COPY_THROUGH_BYTES), inOffset));
        if (n <= 0) return n;
        for (let done = 0; done < n; ) {
          const wrote = Number(symbols.pwrite(outFd, (through + done) as Pointer, n - done, outOffset + done));
          if (wrote <= 0) return -1;
          done += wrote;
        }
        return n;
      },
      copyFileRange(inFd, inOffset, outFd, outOffset, length) {
        offsets[0] = BigInt(inOffset);
        offsets[1] = BigInt(outOffset);
        return Number(symbols.copy_file_range(inFd, inOffsetPtr, outFd, outOffsetPtr, length, 0));
      },
      startWriteback(fd, offset, length) {
        symbols.sync_file_range(fd, offset, length, SYNC_FILE_RANGE_WRITE);
      },
      statAt(dirFd, entryName, out) {
        const { written, read } = encoder.encodeInto(entryName, name.subarray(0, NAME_BYTES - 1));
        if (read !== entryName.length) return false;
        name[written] = 0;
        return statInto(dirFd, namePtr, out);
      },
      statEntry(dirFd, names, at, out) {
        return statInto(dirFd, ptr(names, at), out);
      },
      readEntries(dirFd, into, from) {
        if (!folders || (from === 'start' && Number(folders.lseek(dirFd, 0, SEEK_SET)) !== 0)) return -1;
        return Number(folders.getdents64(dirFd, ptr(into), into.length));
      },
      localTime(seconds) {
        clock[0] = BigInt(Math.floor(seconds));
        symbols.localtime_r(clockPtr, tmPtr);
        return {
          year: tm.getInt32(TM.year, true) + 1900,
          month: tm.getInt32(TM.mon, true) + 1,
          day: tm.getInt32(TM.mday, true),
          hours: tm.getInt32(TM.hour, true),
          minutes: tm.getInt32(TM.min, true),
          seconds: tm.getInt32(TM.sec, true),
        };
      },
      fromLocalTime(time) {
        for (let at = 0; at < TM.size; at += 4) tm.setInt32(at, 0, true);
        tm.setInt32(TM.year, time.year - 1900, true);
        tm.setInt32(TM.mon, time.month - 1, true);
        tm.setInt32(TM.mday, time.day, true);
        tm.setInt32(TM.hour, time.hours, true);
        tm.setInt32(TM.min, time.minutes, true);
        tm.setInt32(TM.sec, time.seconds, true);
        tm.setInt32(TM.isdst, -1, true);
        const seconds = Number(symbols.mktime(tmPtr));
        // failure (callers ask for times from 1980 on, never 1969's last second)
        return seconds === -1 ? Number.NaN : seconds;
      },
    };
  } catch {
    return null;
  }
}
