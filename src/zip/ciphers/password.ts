/**
 * The archive password, where zipfs takes it from (DESIGN.md, "Encryption and passwords"): ZIPFS_PASSWORD, or the
 * first line of the file ZIPFS_PASSWORD_FILE names (the CLI's --password-file sets that variable to its path,
 * never the password), read once per thread when an encrypted entry is first met; else a password source: the
 * CLI's prompt on a terminal (set for the process), an MCP connection's elicitation (set for one call, as an async
 * scope). Never written anywhere, and never a tool argument. With a password, the ZipCrypto and WinZip AES layers
 * unwrap entries (codec-registry.ts).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError } from '../../base/errors.ts';
import type { EntryCipher } from '../codec-types.ts';
import { winZipAesCipher } from './winzip-aes.ts';
import { zipCryptoCipher } from './zip-crypto.ts';

/** The password's bytes (UTF-8), or undefined when none is given. */
export function passwordFromEnvironment(env: NodeJS.ProcessEnv = process.env): Uint8Array | undefined {
  if (env.ZIPFS_PASSWORD) return new TextEncoder().encode(env.ZIPFS_PASSWORD);
  const file = env.ZIPFS_PASSWORD_FILE;
  if (!file) return undefined;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ZipfsError(
      'INVALID_INPUT',
      `Cannot read the password file ${file} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'}); give a ` +
        `readable file whose first line is the archive's password.`,
    );
  }
  const line = text.split(/\r?\n/)[0] ?? '';
  return line === '' ? undefined : new TextEncoder().encode(line);
}

/**
 * Where a password comes from besides the environment. Synchronous, as the decode path is: `ask` may block on a
 * terminal, or throw to end the call while the password is fetched another way (an MCP elicitation), the call then
 * run again.
 */
export interface PasswordSource {
  /**
   * The password given already for the archive at `archive` (an earlier prompt, the connection's), without asking;
   * the same bytes each time.
   */
  known(archive: string | undefined): Uint8Array | undefined;
  /** Asks for one, for the archive at `archive` when known; undefined when none is given. */
  ask(archive: string | undefined): Uint8Array | undefined;
}

interface PasswordScope {
  source?: PasswordSource;
  archive?: string;
}

let processSource: PasswordSource | undefined;
const scope = new AsyncLocalStorage<PasswordScope>();
/** The environment's password, read once (undefined: not read yet; null: none). */
let fromEnvironment: Uint8Array | null | undefined;

/** Sets the process's password source (the CLI's prompt); undefined takes it away. */
export function setPasswordSource(source: PasswordSource | undefined): void {
  processSource = source;
}

/** Runs `run` with `source` as the password source of everything it does (an MCP call: its connection's). */
export function withPasswordSource<T>(source: PasswordSource, run: () => T): T {
  return scope.run({ ...scope.getStore(), source }, run);
}

/** Runs `run` knowing the archive it works on, which a prompt names and a connection keeps a password for. */
export function withArchive<T>(archive: string | undefined, run: () => T): T {
  return archive === undefined ? run() : scope.run({ ...scope.getStore(), archive: path.resolve(archive) }, run);
}

function currentSource(): PasswordSource | undefined {
  return scope.getStore()?.source ?? processSource;
}

/** The password in effect: the environment's first (a configured server's too), else what a source was given. */
export function currentPassword(): Uint8Array | undefined {
  if (fromEnvironment === undefined) fromEnvironment = passwordFromEnvironment() ?? null;
  return fromEnvironment ?? currentSource()?.known(scope.getStore()?.archive);
}

/** Asks the password source for a password where there is none; true when there is one now. */
export function askPassword(): boolean {
  if (currentPassword()) return true;
  return currentSource()?.ask(scope.getStore()?.archive) !== undefined;
}

/**
 * The environment of a worker thread that reads entries: the process's, with a password a source gave (in memory:
 * a thread's environment is an object of this process, not the process's own, which `ps` and /proc show).
 */
export function passwordEnv(): Record<string, string> {
  const env = { ...process.env } as Record<string, string>;
  const password = fromEnvironment ? undefined : currentSource()?.known(scope.getStore()?.archive);
  if (password) env.ZIPFS_PASSWORD = new TextDecoder().decode(password);
  return env;
}

const layers = new WeakMap<Uint8Array, EntryCipher[]>();

/** The layers a password unlocks, made once per password. */
export function passwordCiphers(password: Uint8Array): EntryCipher[] {
  let made = layers.get(password);
  if (!made) layers.set(password, (made = [zipCryptoCipher(password), winZipAesCipher(password)]));
  return made;
}
