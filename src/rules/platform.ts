/**
 * The platform zipfs runs on, and what each rule that differs between
 * platforms takes from it. This is the one place that reads
 * `process.platform` (base/libc.ts, below this layer, keeps its own test for
 * Linux: it loads Linux's C library and nothing else); every other file asks
 * one of the questions below, so a rule is changed, and tested with another
 * platform injected (tests/rules/platform.test.ts), in one place.
 */

/** A platform, as Node names it ('linux', 'darwin', 'win32', ...). */
export type Platform = NodeJS.Platform;

/** The platform this process runs on: the default of every question below. */
export function hostPlatform(): Platform {
  return process.platform;
}

/**
 * Whether the platform's default folders fold case: NTFS on Windows and APFS on macOS do, unless made
 * case-sensitive. A guess for where no probe can be made (rules/case-probe.ts probes the folder itself).
 */
export function foldsCaseByDefault(platform: Platform = hostPlatform()): boolean {
  return platform === 'win32' || platform === 'darwin';
}

/** Whether names are held to Windows's rules (rules/platform-names.ts): only Windows refuses them. */
export function refusesWindowsNames(platform: Platform = hostPlatform()): boolean {
  return platform === 'win32';
}

/**
 * Whether a file another program holds open blocks renaming, replacing or removing it: on Windows a
 * file opened without delete sharing (an editor, a viewer, a virus scanner or indexer for a moment)
 * cannot be, and the call fails with EBUSY, EPERM or EACCES (rules/file-in-use.ts). Elsewhere a rename
 * or an unlink works whoever holds the file open. So on Windows sync retries its final rename, and
 * never hard-links its backup to the zip (the link would be held with it).
 */
export function openFilesBlockRenames(platform: Platform = hostPlatform()): boolean {
  return platform === 'win32';
}

/** Whether this platform keeps per-user program data in %LOCALAPPDATA% (session/data-dir.ts): Windows. */
export function keepsDataInLocalAppData(platform: Platform = hostPlatform()): boolean {
  return platform === 'win32';
}

/**
 * Whether a terminal is told by its descriptor (a character device that is not /dev/null): Unix. Windows
 * consoles are no such devices; the runtime is asked instead.
 */
export function terminalsAreDevices(platform: Platform = hostPlatform()): boolean {
  return platform !== 'win32';
}

/** Whether open descriptors may be named as folders (Linux's /proc/self/fd; files/beneath.ts checks it is mounted). */
export function namesDescriptorsInProc(platform: Platform = hostPlatform()): boolean {
  return platform === 'linux';
}

/**
 * The longest name (one path segment) file systems take, in UTF-8 bytes: 255 on ext4 and APFS. NTFS counts
 * 255 UTF-16 units, which 255 UTF-8 bytes never exceed, so one limit holds on every platform.
 */
export const NAME_MAX_BYTES = 255;

/** The longest path the system takes, in bytes with its closing NUL: macOS's PATH_MAX, else Linux's. */
export function pathMaxBytes(platform: Platform = hostPlatform()): number {
  return platform === 'darwin' ? 1024 : 4096;
}
