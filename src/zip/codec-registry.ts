/**
 * The codec registry: compression method -> Codec, and the encryption layers under them. The one
 * place that decides how an entry's data is decoded (entry-data.ts asks it) and how a new entry's
 * data is encoded (entry-encode.ts asks it). Stored and deflate are registered at load
 * (codecs/built-in.ts); a test registers its own codec in-process and takes it away after.
 */
import type { Codec, EntryCipher } from './codec-types.ts';
import { BUILT_IN_CODECS } from './codecs/built-in.ts';
import { currentPassword, passwordCiphers } from './ciphers/password.ts';
import { FLAG_ENCRYPTED, FLAG_PATCHED, FLAG_STRONG_ENCRYPTION, METHOD_NAMES } from './constants.ts';
import type { EntryLocation } from './types.ts';

/** How one entry's data is decoded: the layer that decrypts it, if any, and the codec under it. */
export interface EntryDecoding {
  codec: Codec;
  cipher: EntryCipher | undefined;
}

const ENCRYPTED_FLAGS = FLAG_ENCRYPTED | FLAG_STRONG_ENCRYPTION;
const UNREADABLE_FLAGS = ENCRYPTED_FLAGS | FLAG_PATCHED;

const codecs = new Map<number, Codec>();
/** One decoding per codec for entries under no layer, made once: asked for each entry read, it allocates nothing. */
const plain = new Map<number, EntryDecoding>();
const cipherList: EntryCipher[] = [];

/** Adds a codec for its method; returns what takes it away again. A method has one codec. */
export function registerCodec(codec: Codec): () => void {
  if (codecs.has(codec.method)) throw new Error(`compression method ${codec.method} has a codec already`);
  codecs.set(codec.method, codec);
  plain.set(codec.method, { codec, cipher: undefined });
  return () => {
    if (codecs.get(codec.method) !== codec) return;
    codecs.delete(codec.method);
    plain.delete(codec.method);
  };
}

/** Adds an encryption layer; returns what takes it away again. */
export function registerCipher(cipher: EntryCipher): () => void {
  cipherList.push(cipher);
  return () => {
    const at = cipherList.indexOf(cipher);
    if (at >= 0) cipherList.splice(at, 1);
  };
}

for (const codec of BUILT_IN_CODECS) registerCodec(codec);

/**
 * The encryption layers, in order (encryption.ts asks whether one unwraps an entry): the registered ones and those
 * the password in effect unlocks (ciphers/password.ts), asked when an encrypted entry is met: a process that meets
 * none never reads a password. It may differ between calls (an MCP connection's own); its layers are made once.
 */
export function ciphers(): readonly EntryCipher[] {
  const password = currentPassword();
  return password ? [...cipherList, ...passwordCiphers(password)] : cipherList;
}

/** The layer that writes encrypted entries (WinZip AES-256 under the password in effect), if a password is given. */
export function sealingCipher(): EntryCipher | undefined {
  return ciphers().find((layer) => layer.encryptor);
}

/** The codec of `method`, if zipfs has one. */
export function codecFor(method: number): Codec | undefined {
  return codecs.get(method);
}

/** How `entry`'s data is decoded, or undefined when zipfs cannot (unreadableReason says why). */
export function decodingOf(entry: EntryLocation): EntryDecoding | undefined {
  if (!(entry.flags & UNREADABLE_FLAGS)) return plain.get(entry.method);
  if (entry.flags & FLAG_PATCHED) return undefined;
  const cipher = ciphers().find((layer) => layer.wraps(entry));
  const codec = cipher && codecs.get(cipher.innerMethod(entry));
  return codec && { codec, cipher };
}

/** Why zipfs cannot decode `entry`, as open refuses it (the entry's name goes before it). */
export function unreadableReason(entry: EntryLocation): string {
  const cipher = entry.flags & ENCRYPTED_FLAGS ? ciphers().find((layer) => layer.wraps(entry)) : undefined;
  if (entry.flags & ENCRYPTED_FLAGS && !cipher)
    return 'is encrypted, and zipfs does not decrypt; decrypt the archive with its own tool first';
  if (entry.flags & FLAG_PATCHED)
    return 'holds "compressed patched data" (flag bit 5), which zipfs and most readers do not support';
  const method = cipher ? cipher.innerMethod(entry) : entry.method;
  const name = METHOD_NAMES[method] ?? 'unknown';
  return (
    `uses compression method ${method} (${name}); zipfs reads ${readableNames()} entries, so re-create the ` +
    `archive with deflate`
  );
}

/** "stored and deflate": the methods zipfs reads, as an error lists them. */
function readableNames(): string {
  const names = [...codecs.values()].map((codec) => codec.name);
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names.at(-1)}`;
}

/**
 * Whether an entry of these flags and method is readable with no layer: the common case, asked
 * in place of a packed directory without an entry object. False sends the caller to the full
 * answer (decodingOf, or assertReadable's refusal).
 */
export function plainlyReadable(flags: number, method: number): boolean {
  return !(flags & UNREADABLE_FLAGS) && codecs.has(method);
}

/** Whether `entry`'s data is its bytes as they sit in the zip (stored, sizes equal, under no layer). */
export function storedAsIs(entry: EntryLocation): boolean {
  const codec = entry.flags & UNREADABLE_FLAGS ? undefined : codecs.get(entry.method);
  return codec?.identity === true && codec.sizeFault?.(entry.compressedSize, entry.uncompressedSize) === undefined;
}

/**
 * An entry's data decoded to exactly `size` bytes, or undefined on any fault (a method without a
 * codec, sizes it refuses, damaged or short data): for a check that sends a fault to the reader
 * that names it. No layer: the caller has refused encrypted entries before.
 */
export function decodeOrUndefined(method: number, raw: Uint8Array, size: number): Uint8Array | undefined {
  const codec = codecs.get(method);
  if (!codec || codec.sizeFault?.(raw.length, size) !== undefined) return undefined;
  try {
    const data = codec.decode(raw, size);
    return data.length === size ? data : undefined;
  } catch {
    return undefined;
  }
}

/** "Version needed to extract" for an entry written with `method` (as before: 10 for any but deflate's 20). */
export function versionNeededFor(method: number): number {
  return codecs.get(method)?.versionNeeded ?? 10;
}
