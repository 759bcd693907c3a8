/**
 * The archive password, where zipfs takes it from (DESIGN.md, "Encryption and passwords"): ZIPFS_PASSWORD, or the
 * first line of the file ZIPFS_PASSWORD_FILE names (the CLI's --password-file sets that variable to its path,
 * never the password). Read in every thread at start-up (the extraction workers too), never written anywhere, and
 * never a tool argument. With one, the ZipCrypto and WinZip AES layers are registered.
 */
import fs from 'node:fs';
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

/** The layers a password unlocks. */
export function passwordCiphers(password: Uint8Array): EntryCipher[] {
  return [zipCryptoCipher(password), winZipAesCipher(password)];
}
