/**
 * Swaps two paths with one atomic rename exchange (renameat2 RENAME_EXCHANGE),
 * over and over, as an attacker racing zipfs would: run as
 * `bun swap-loop.ts A B`. Stops on SIGTERM (or after 60 s) with A back in
 * place, and prints how many exchanges it made. Linux only.
 */
import fs from 'node:fs';
import { dlopen, FFIType } from 'bun:ffi';

const AT_FDCWD = -100;
const RENAME_EXCHANGE = 2;
const { symbols } = dlopen('libc.so.6', {
  renameat2: { args: [FFIType.i32, FFIType.cstring, FFIType.i32, FFIType.cstring, FFIType.u32], returns: FFIType.i32 },
});
const [a, b] = [process.argv[2]!, process.argv[3]!];
const [aBytes, bBytes] = [Buffer.from(`${a}\0`), Buffer.from(`${b}\0`)];
const exchange = () => symbols.renameat2(AT_FDCWD, aBytes as never, AT_FDCWD, bBytes as never, RENAME_EXCHANGE) === 0;

let stop = false;
process.on('SIGTERM', () => (stop = true));
const wasLink = fs.lstatSync(a).isSymbolicLink();
let count = 0;
const deadline = Date.now() + 60_000;
while (!stop && Date.now() < deadline) {
  for (let i = 0; i < 200; i++) if (exchange()) count++;
  await Bun.sleep(0); // lets SIGTERM in
}
if (fs.lstatSync(a).isSymbolicLink() !== wasLink) exchange();
console.log(count);
process.exit(0);
