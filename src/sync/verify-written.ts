/**
 * The last check before a sync's rename: the archive just written is read
 * back with the reader open uses (end records, every central record, every
 * local header it points at, ranges and overlaps; layout.ts), so a sync can
 * never report success over an archive that unzip, Python or zipfs itself
 * would refuse. Only the directory and headers are read: nothing is inflated,
 * so the check costs about one central-directory read, whatever the data.
 */
import { ZipfsError } from '../errors.ts';
import { FileSource, checkLayout, readCentralDirectory, type CentralDirectory } from '../zip/index.ts';

const HEADER_WINDOW_BYTES = 64 * 1024;

/** Returns the written archive's central directory, for the checks open would make of it. */
export function verifyWritten(file: string, entriesWritten: number): CentralDirectory {
  const source = new FileSource(file, HEADER_WINDOW_BYTES);
  try {
    const directory = readCentralDirectory(source);
    if (directory.entries.length !== entriesWritten) throw new Error(`its central directory holds ${directory.entries.length} entries, not the ${entriesWritten} written`);
    checkLayout(source, directory);
    return directory;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ZipfsError(
      'SYNC_FAILED',
      `The archive sync wrote failed its check before replacing the zip (${reason}); the source zip was left unchanged and the workspace keeps your changes. If the source zip is damaged, repair it (zip -FF) or write a fresh one with force after moving it away; otherwise report this as a zipfs bug.`,
    );
  } finally {
    source.close();
  }
}
