/**
 * Entries written from the workspace during a sync: modified ones, which keep
 * the original's name, attributes, comment, extra fields and method, and
 * added ones, which get Unix attributes and an extended timestamp.
 */
import fs from 'node:fs';
import path from 'node:path';
import { crc32, deflateRaw } from '../zip/codec.ts';
import { EXTRA_EXTENDED_TIMESTAMP, FLAG_DATA_DESCRIPTOR, FLAG_UTF8, HOST_UNIX, METHOD_DEFLATED, METHOD_STORED, S_IFDIR, S_IFLNK } from '../zip/constants.ts';
import { dateToDosDateTime } from '../zip/dos-time.ts';
import { readLocalExtra, refreshExtraFields, type EntryFields, type FileSource, type ZipEntry, type ZipWriter } from '../zip/index.ts';
import type { EntryRecord } from '../session/manifest.ts';
import { observe, readWorkspaceItem, type Observed, type WorkspaceDiff } from './workspace-diff.ts';

/** What was read from the workspace for each written entry, so the new manifest records the stat that matches the bytes. */
export type Captured = Map<string, Observed>;

const UNIX_MADE_BY = (HOST_UNIX << 8) | 20;

/** Reads a workspace item, noting its stat first: if it changes after, the next status sees it. */
function capture(root: string, relative: string, captured: Captured): { bytes: Buffer; observed: Observed; mode: number } {
  const stats = fs.lstatSync(path.join(root, relative));
  const observed = observe(stats);
  const bytes = readWorkspaceItem(root, relative, observed.kind);
  captured.set(relative, observed);
  return { bytes, observed, mode: stats.mode };
}

function compress(bytes: Uint8Array, method: number): { method: number; data: Uint8Array } {
  return method === METHOD_STORED ? { method, data: bytes } : { method: METHOD_DEFLATED, data: deflateRaw(bytes) };
}

/** The fields that follow from the data and its time, the same for modified and added entries. */
function dataFields(bytes: Uint8Array, packed: { method: number; data: Uint8Array }, mtime: Date) {
  return { method: packed.method, ...dateToDosDateTime(mtime), crc32: crc32(bytes), compressedSize: packed.data.length, uncompressedSize: bytes.length };
}

/** A modified entry (or one the source no longer holds): new data, the original's name, attributes and method.
 * Returns the entry's central-directory record. */
export function writeFromWorkspace(writer: ZipWriter, root: string, record: EntryRecord, original: ZipEntry | undefined, source: FileSource | undefined, captured: Captured, diff: WorkspaceDiff): Uint8Array {
  const isDir = record.type === 'dir';
  const item = isDir ? undefined : capture(root, record.path, captured);
  const bytes = item?.bytes ?? new Uint8Array(0);
  const mtime = new Date(isDir ? (diff.observed.get(record.path)?.mtime_ms ?? record.mtime_ms) : item!.observed.mtime_ms);
  const packed = compress(bytes, record.method === METHOD_STORED ? METHOD_STORED : METHOD_DEFLATED);
  let externalAttributes = original?.externalAttributes ?? record.external_attributes;
  let versionMadeBy = original?.versionMadeBy ?? UNIX_MADE_BY;
  if (item?.observed.kind === 'symlink' && record.type === 'file') {
    // Another tool replaced the file with a link: store it as a link, never follow it.
    externalAttributes = ((S_IFLNK | 0o777) << 16) >>> 0;
    versionMadeBy = (HOST_UNIX << 8) | (versionMadeBy & 0xff);
  }
  const rawName = original?.rawName ?? new TextEncoder().encode(record.name);
  const fields: EntryFields = {
    versionMadeBy,
    flags: ((original?.flags ?? record.flags) & ~FLAG_DATA_DESCRIPTOR) | (original ? 0 : utf8Flag(record.name)),
    ...dataFields(bytes, packed, mtime),
    rawName,
    comment: original?.rawComment ?? new Uint8Array(0),
    internalAttributes: original?.internalAttributes ?? 0,
    externalAttributes,
  };
  const seconds = Math.floor(mtime.getTime() / 1000);
  const localExtra = original && source ? readLocalExtra(source, original) : new Uint8Array(0);
  return writer.addEntry(fields, refreshExtraFields(localExtra, seconds), refreshExtraFields(original?.rawExtra ?? new Uint8Array(0), seconds), packed.data);
}

function utf8Flag(name: string): number {
  return /^[\x20-\x7e]*$/.test(name) ? 0 : FLAG_UTF8;
}

/** A new file, link or empty folder: Unix attributes, an extended timestamp, deflate unless it does not help.
 * Returns the entry's central-directory record. */
export function writeAddition(writer: ZipWriter, root: string, relative: string, observed: Observed, captured: Captured): Uint8Array {
  const isDir = observed.kind === 'dir';
  const item = isDir ? undefined : capture(root, relative, captured);
  const bytes = item?.bytes ?? new Uint8Array(0);
  let packed = compress(bytes, METHOD_DEFLATED);
  if (packed.data.length >= bytes.length) packed = { method: METHOD_STORED, data: bytes };
  const name = isDir ? `${relative}/` : relative;
  const mtime = new Date((item?.observed ?? observed).mtime_ms);
  const mode = isDir ? S_IFDIR | 0o755 : observed.kind === 'symlink' ? S_IFLNK | 0o777 : (item!.mode & 0o170777) | 0o600;
  const timestamp = new Uint8Array(5);
  timestamp[0] = 1;
  new DataView(timestamp.buffer).setInt32(1, Math.floor(mtime.getTime() / 1000), true);
  const extra = [{ id: EXTRA_EXTENDED_TIMESTAMP, data: timestamp }];
  return writer.addEntry(
    {
      versionMadeBy: UNIX_MADE_BY,
      flags: utf8Flag(name),
      ...dataFields(bytes, packed, mtime),
      rawName: new TextEncoder().encode(name),
      comment: new Uint8Array(0),
      internalAttributes: 0,
      externalAttributes: ((mode << 16) | (isDir ? 0x10 : 0)) >>> 0,
    },
    extra,
    extra,
    packed.data,
  );
}
