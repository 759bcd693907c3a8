/**
 * The CLI's password prompt: when a command must decrypt an entry and no password is given (ZIPFS_PASSWORD,
 * --password-file, ZIPFS_PASSWORD_FILE), and standard input and error are a terminal, "Password for report.zip: "
 * on the terminal with echo off, as ssh and sudo ask. Never an argument (`ps` would show it). Read synchronously
 * from /dev/tty, as the decode path asks synchronously (zip/ciphers/password.ts); `stty` turns echo and the signal
 * keys off around the read, and the terminal is put back as it was on Enter, Ctrl-C, Ctrl-D and any error.
 * Off a terminal nothing is asked: the refusal says how to give the password.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ZipfsError } from '../base/errors.ts';
import { terminalsAreDevices } from '../rules/platform.ts';
import { setPasswordSource } from '../zip/index.ts';
import { isTerminal } from './terminal.ts';

/** Installs the prompt as the process's password source: asked once, the answer kept in memory for this run. */
export function installPasswordPrompt(): void {
  let given: Uint8Array | undefined;
  let asked = false;
  setPasswordSource({
    known: () => given, // one archive per run
    ask(archive) {
      if (asked) return given;
      asked = true;
      if (!terminalsAreDevices() || !isTerminal(0) || !isTerminal(2)) return undefined;
      given = promptHidden(`Password for ${archive === undefined ? 'the archive' : path.basename(archive)}: `);
      return given;
    },
  });
}

const ENTER = new Set([0x0a, 0x0d]);
const CTRL_C = 0x03;
const CTRL_D = 0x04;
const CTRL_U = 0x15;
const ERASE = new Set([0x08, 0x7f]);

/** `stty ARGS` on the terminal `tty`; its output (the settings, for -g), or undefined when stty failed. */
function stty(tty: number, args: string[]): string | undefined {
  const result = Bun.spawnSync(['stty', ...args], { stdin: tty, stdout: 'pipe', stderr: 'ignore' });
  return result.exitCode === 0 ? result.stdout.toString().trim() : undefined;
}

/** Writes `prompt` on stderr and reads a line from the terminal without echo; undefined for an empty line. */
function promptHidden(prompt: string): Uint8Array | undefined {
  let tty: number;
  try {
    tty = fs.openSync('/dev/tty', 'r+');
  } catch {
    return undefined; // no controlling terminal
  }
  const saved = stty(tty, ['-g']);
  // Echo off; byte by byte, so Ctrl-C reaches this loop (not a signal that would leave the terminal silent).
  if (saved === undefined || stty(tty, ['-echo', '-icanon', '-isig', 'min', '1', 'time', '0']) === undefined) {
    if (saved !== undefined) stty(tty, [saved]);
    fs.closeSync(tty);
    return undefined;
  }
  let interrupted = false;
  try {
    fs.writeSync(2, prompt);
    const line = readHiddenLine(tty);
    if (line === 'interrupted') interrupted = true;
    else return line.length > 0 ? line : undefined;
  } finally {
    stty(tty, [saved]);
    fs.writeSync(2, interrupted ? '^C\n' : '\n');
    fs.closeSync(tty);
  }
  // As Ctrl-C anywhere else, 130: the handler that undoes work in flight (exit-cleanup.ts) now, as this thread
  // stays busy until the throw unwinds past it; without one, the signal's default (exit at once).
  if (process.listenerCount('SIGINT') > 0) process.emit('SIGINT', 'SIGINT');
  else process.kill(process.pid, 'SIGINT');
  throw new ZipfsError('INVALID_INPUT', 'The password prompt was interrupted (Ctrl-C); nothing was read.');
}

/** The bytes typed up to Enter (Backspace and Ctrl-U edit them; Ctrl-D on an empty line ends it), or Ctrl-C. */
function readHiddenLine(tty: number): Uint8Array | 'interrupted' {
  const typed: number[] = [];
  const buffer = Buffer.alloc(256);
  const done = (answer: Uint8Array | 'interrupted') => {
    buffer.fill(0);
    typed.fill(0);
    return answer;
  };
  for (;;) {
    const n = fs.readSync(tty, buffer, 0, buffer.length, null);
    if (n === 0) return done(new Uint8Array(typed));
    for (const byte of buffer.subarray(0, n)) {
      if (ENTER.has(byte)) return done(new Uint8Array(typed));
      if (byte === CTRL_C) return done('interrupted');
      if (byte === CTRL_D && typed.length === 0) return done(new Uint8Array(0));
      if (byte === CTRL_U) typed.length = 0;
      else if (ERASE.has(byte)) {
        // One character, however many UTF-8 bytes: continuation bytes are 10xxxxxx.
        let last = typed.pop();
        while (last !== undefined && (last & 0xc0) === 0x80) last = typed.pop();
      } else if (byte >= 0x20 || byte === 0x09) typed.push(byte);
    }
  }
}
