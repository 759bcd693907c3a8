/**
 * The last check before a sync's rename: the archive just written is read
 * back with the reader open uses (end records, every central record, every
 * local header it points at, ranges and overlaps; layout.ts), so a sync can
 * never report success over an archive that unzip, Python or zipfs itself
 * would refuse. Only the directory and headers are read: nothing is inflated,
 * so the check costs about one central-directory read, whatever the data.
 *
 * What the writer copied in one raw range is the old archive's bytes, whose
 * layout was checked when they were read (open, or copy-check.ts), with every
 * record moved by the same amount: of such a run, the first and last headers
 * are read, which catches a wrong move or length; the headers between are
 * not read again. Fresh entries are read whole. A sync that changed one entry
 * of thousands so reads a few headers, not thousands.
 */
import { ZipfsError } from '../base/errors.ts';
import {
  FileSource,
  packedLayoutFault,
  readPackedDirectory,
  type CodePage,
  type PackedDirectory,
} from '../zip/index.ts';

const HEADER_WINDOW_BYTES = 64 * 1024;

/**
 * Returns the written archive's central directory, packed (a million entries would be 500 MiB as
 * objects), its names read in the session's `nameEncoding`, for the checks open would make of it:
 * every local header is read and compared with its record, one entry at a time, without an object per entry.
 */
export function verifyWritten(
  file: string,
  entriesWritten: number,
  options: {
    nameEncoding?: CodePage;
    holes?: readonly { start: number; end: number }[];
    /** Where the writer began each piece (ZipWriter.pieceStarts); without them every header is read. */
    pieceStarts?: readonly number[];
  } = {},
): PackedDirectory {
  // A remote S3 sync's holes (remote/server-copies.ts): runs of the old object the store copies on the server, on the
  // condition it is still the version read, so their local headers are the old archive's, moved: not here to read
  // (the copy check's comment says why that is sound).
  const holes = [...(options.holes ?? [])].sort((a, b) => a.start - b.start);
  return checked(file, entriesWritten, (source) => {
    const directory = readPackedDirectory(source, options.nameEncoding);
    if (directory.count !== entriesWritten)
      throw new Error(`its central directory holds ${directory.count} entries, not the ${entriesWritten} written`);
    const ends = directory.byOffset();
    const read = options.pieceStarts ? piecesEnds(directory, ends, options.pieceStarts) : undefined;
    let hole = 0;
    for (let k = 0; k < ends.length; k++) {
      if (read && !read.has(k)) continue;
      const at = directory.localHeaderOffset(ends[k]!);
      while (hole < holes.length && holes[hole]!.end <= at) hole++;
      // Its header and name, and room for the longest extra field: any of that in a hole, and it is not read.
      const header = at + 30 + directory.nameLength(ends[k]!) + 0xffff;
      if (hole < holes.length && holes[hole]!.start < header) continue;
      const limit = k + 1 < ends.length ? directory.localHeaderOffset(ends[k + 1]!) : directory.centralStart;
      const fault = packedLayoutFault(source, directory, ends[k]!, limit, ends[k + 1]);
      if (fault) throw fault;
    }
    return directory;
  });
}

/**
 * The entries (by place in file order, `ends`) whose headers are read when only the pieces are: the first and last,
 * each piece's first, and the one before it (the last of the run before). Found by a binary search per piece, not a
 * look at every entry.
 */
function piecesEnds(directory: PackedDirectory, ends: Uint32Array, starts: readonly number[]): Set<number> {
  const read = new Set([0, ends.length - 1]);
  for (const start of starts) {
    let [low, high] = [0, ends.length - 1];
    while (low < high) {
      const middle = (low + high + 1) >>> 1;
      if (directory.localHeaderOffset(ends[middle]!) <= start) low = middle;
      else high = middle - 1;
    }
    read.add(low);
    if (low > 0) read.add(low - 1);
  }
  return read;
}

function checked<T>(file: string, entriesWritten: number, check: (source: FileSource) => T): T {
  const source = new FileSource(file, HEADER_WINDOW_BYTES);
  try {
    return check(source);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ZipfsError(
      'SYNC_FAILED',
      `The archive sync wrote failed its check before replacing the zip (${reason}); the source zip was left ` +
        `unchanged and the workspace keeps your changes. If the source zip is damaged, repair it (zip -FF) or ` +
        `write a fresh one with force after moving it away; otherwise report this as a zipfs bug.`,
    );
  } finally {
    source.close();
  }
}
