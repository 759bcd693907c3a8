/**
 * grep's search of one file fed as a stream of byte pieces, from a workspace
 * file or a zip entry alike: the first HEAD_BYTES decide text or binary (as
 * file-text.ts says), then the pieces go to the line search (text) or to the
 * binary scan (binary files, on request), or the file is skipped.
 */
import { shortenAround as cut } from '../files/shorten-diff-lines.ts';
import type { TextEncoding } from '../files/text-encoding.ts';
import { BinaryScan } from './binary-scan.ts';
import { HEAD_BYTES, streamDecoder, textPlan } from './file-text.ts';
import { LineSearch, type MatchSink } from './line-search.ts';
import type { LinePlace } from './grep-types.ts';

export interface FileSink extends MatchSink {
  /** The file is binary and was not searched. */
  skippedBinary(): void;
}

export interface SearchOptions {
  pattern: string;
  flags: string;
  contextLines: number;
  /** For files without a byte-order mark. */
  encoding: TextEncoding;
  /** Search binary files as Latin-1 bytes (first match only) instead of skipping them. */
  binary: boolean;
}

export class FileSearch {
  private head: Uint8Array[] = [];
  private headLength = 0;
  private lines: { search: LineSearch; decode: (bytes: Uint8Array | undefined) => string } | undefined;
  private scan: BinaryScan | undefined;
  /** Nothing more is wanted from this file. */
  private done = false;

  constructor(
    private readonly file: string,
    private readonly options: SearchOptions,
    /** The options' pattern compiled once for the whole grep, with 'g' (each line starts it at lastIndex 0). */
    private readonly regex: RegExp,
    private readonly sink: FileSink,
    /** Resume here in a text file (a cursor's place). */
    private readonly from?: LinePlace,
  ) {}

  /** How far a text file is searched (line-search.ts); undefined before its text starts. */
  place(): LinePlace | undefined {
    return this.lines?.search.place();
  }

  /** Takes the next piece of the file; false once nothing more is wanted from it (the caller stops reading). */
  push(bytes: Uint8Array): boolean {
    if (this.done) return false;
    if (this.lines || this.scan) return this.feed(bytes);
    if (this.head.length === 0 && bytes.length >= HEAD_BYTES) return this.start(bytes);
    // A short piece (a pipe-like read, a small inflate output): copied, as the reader may reuse its buffer.
    this.head.push(bytes.slice());
    this.headLength += bytes.length;
    return this.headLength < HEAD_BYTES || this.start(this.joinHead());
  }

  /** The file has ended (or could be read no further). */
  end(): void {
    if (!this.lines && !this.scan && !this.done) this.start(this.joinHead()); // a file shorter than HEAD_BYTES
    if (this.done) return;
    this.done = true;
    if (this.scan) this.report(this.scan.end());
    if (this.lines) {
      this.lines.search.push(this.lines.decode(undefined));
      this.lines.search.end();
    }
  }

  private joinHead(): Uint8Array {
    const head = this.head.length === 1 ? this.head[0]! : Buffer.concat(this.head);
    this.head = [];
    return head;
  }

  /** Decides text or binary from the file's first bytes, then searches them. */
  private start(head: Uint8Array): boolean {
    const plan = textPlan(head, this.options.encoding);
    if (plan) {
      this.lines = {
        search: new LineSearch(this.file, this.regex, this.options.contextLines, this.sink, this.from),
        decode: streamDecoder(plan.encoding),
      };
      return this.feed(head.subarray(plan.skip));
    }
    if (!this.options.binary) {
      this.sink.skippedBinary();
      this.done = true;
      return false;
    }
    this.scan = new BinaryScan(this.options.pattern, this.options.flags, () => this.sink.gaveUp(this.file, 0));
    return this.feed(head);
  }

  private feed(bytes: Uint8Array): boolean {
    if (this.scan) {
      const hit = this.scan.push(bytes);
      if (hit) {
        this.report(hit);
        this.done = true;
      }
    } else if (!this.lines!.search.push(this.lines!.decode(bytes))) {
      this.done = true;
    }
    return !this.done;
  }

  private report(hit: { offset: number; text: string } | undefined): void {
    if (hit && this.sink.count())
      this.sink.keep({ file: this.file, line_number: 0, line_content: cut(hit.text), byte_offset: hit.offset });
  }
}
