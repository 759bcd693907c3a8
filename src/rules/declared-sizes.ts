/** Open's limits on what an archive declares: entry count, sizes, ratios (ZIP_BOMB_DETECTED). */
import { ZipfsError, type Refuse } from '../base/errors.ts';
import { quoted } from '../format/quote-name.ts';
import type { Limits } from './limits.ts';

function bomb(message: string): ZipfsError {
  return new ZipfsError('ZIP_BOMB_DETECTED', message);
}

/** More entries than open takes. */
export function tooManyEntries(count: number, limits: Limits): ZipfsError {
  return bomb(
    `The archive has ${count} entries, over the limit of ${limits.maxEntries}. If it is trusted, raise ` +
      `ZIPFS_MAX_ENTRIES and open it again.`,
  );
}

/**
 * The declared sizes of an archive's files against open's limits: each entry's ratio as it is
 * added, the total and the overall ratio at the end. Entries are given by number, their name
 * asked for only to refuse one, so a packed directory of a million entries makes no objects.
 */
export class DeclaredSizes {
  private totalBytes = 0;
  private totalCompressed = 0;

  constructor(
    private readonly limits: Limits,
    private readonly refuse: Refuse,
    private readonly nameOf: (index: number) => string,
  ) {}

  add(index: number, size: number, packed: number): void {
    this.totalBytes += size;
    this.totalCompressed += packed;
    const { limits } = this;
    if (size > limits.ratioFloorBytes && size / Math.max(packed, 1) > limits.maxEntryRatio) {
      this.refuse(
        bomb(
          `Entry ${quoted(this.nameOf(index))} expands ${Math.round(size / Math.max(packed, 1))}:1 (${size} bytes ` +
            `from ${packed}), over the per-entry limit of ${limits.maxEntryRatio}:1. If it is trusted, raise ` +
            `ZIPFS_MAX_ENTRY_RATIO.`,
        ),
      );
    }
  }

  /** The total, once checked. */
  finish(): number {
    const { limits, totalBytes, totalCompressed } = this;
    if (totalBytes > limits.maxExtractedBytes) {
      this.refuse(
        bomb(
          `The archive expands to ${totalBytes} bytes, over the limit ` +
            `of ${limits.maxExtractedBytes}. If it is trusted, raise ZIPFS_MAX_EXTRACTED_BYTES.`,
        ),
      );
    }
    if (totalBytes > limits.ratioFloorBytes && totalBytes / Math.max(totalCompressed, 1) > limits.maxRatio) {
      this.refuse(
        bomb(
          `The archive expands ${Math.round(totalBytes / Math.max(totalCompressed, 1))}:1 overall ` +
            `(${totalBytes} bytes from ${totalCompressed}), over the limit of ${limits.maxRatio}:1. If it is ` +
            `trusted, raise ZIPFS_MAX_RATIO.`,
        ),
      );
    }
    return totalBytes;
  }
}
