/** How a path in the workspace looks now. */
export interface Observed {
  /** `special`: a FIFO, socket or device, never opened. */
  kind: 'file' | 'symlink' | 'dir' | 'special';
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  ino: number;
  nlink: number;
  /** For `special`: what it is ("a FIFO (named pipe)"). */
  what?: string;
}
