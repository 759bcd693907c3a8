import path from 'node:path';
import fs from 'node:fs';

/** The shared conformance corpus beside the project (CI has it too). */
export const CORPUS_DIR = path.resolve(import.meta.dir, '../../../shared/corpus');

export interface CorpusEntry {
  name: string;
  size?: number;
  is_dir?: boolean;
  is_symlink?: boolean;
  text_content?: string;
  content_base64?: string;
  content_file?: string;
  sha256?: string;
  read_must_fail?: string;
  mode_octal?: string;
}

export interface CorpusFile {
  file: string;
  kind: string;
  valid?: boolean;
  entries?: CorpusEntry[];
  comment?: string;
  error_stage?: 'open' | 'read';
  error_entries?: string[];
  unsafe_entries?: { name: string; reason: string }[];
  path_conflicts?: string[];
  backslash_names?: boolean;
  requires_lenient_reader?: boolean;
  fs_tree?: string[];
}

export function loadCorpus(): CorpusFile[] {
  const json = JSON.parse(fs.readFileSync(path.join(CORPUS_DIR, 'expectations.json'), 'utf8'));
  return (json.files as CorpusFile[]).filter((f) => f.kind === 'archive');
}

export function corpusPath(file: string): string {
  return path.join(CORPUS_DIR, file);
}

/** The expected bytes of an entry, from whichever field the record gives. */
export function expectedContent(entry: CorpusEntry): Uint8Array | undefined {
  if (entry.text_content !== undefined) return new TextEncoder().encode(entry.text_content);
  if (entry.content_base64 !== undefined) return Buffer.from(entry.content_base64, 'base64');
  if (entry.content_file !== undefined) return fs.readFileSync(corpusPath(entry.content_file));
  return undefined;
}
