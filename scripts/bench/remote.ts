/**
 * Archives on servers (issue 34): what a lazy open, a read of one entry and a sync of one small
 * change cost against real servers on loopback (nginx over HTTPS, Apache mod_dav, moto's S3),
 * in requests and bytes counted at the server and in time, against downloading the whole archive
 * and against a client that reads the central directory again at every call (as remotezip does).
 * The archive is `bytes` of 1 MiB stored random entries and a small text entry; a server not
 * installed is skipped, and the report says so.
 */
import fs from 'node:fs';
import path from 'node:path';
import { runZipfs } from '../../tests/helpers/cli.ts';
import {
  APACHE,
  NGINX,
  missing,
  motoServer,
  startHttps,
  startS3,
  startWebdav,
} from '../../tests/helpers/remote-servers.ts';
import { humanBytes } from '../../src/format/units.ts';

interface Step {
  ms: number;
  requests: number;
  down: number;
  up: number;
  answer: any;
}

/** The benchmark archive: `bytes` rounded to whole MiB entries, made once per size. */
function makeArchive(scratch: string, bytes: number): string {
  const file = path.join(scratch, `remote-${bytes}.zip`);
  const script =
    'import zipfile,os,sys\n' +
    'with zipfile.ZipFile(sys.argv[1],"w",zipfile.ZIP_STORED) as z:\n' +
    ' for i in range(int(sys.argv[2])): z.writestr("data/f%05d.bin"%i, os.urandom(1<<20))\n' +
    ' z.writestr("notes/readme.txt","a note\\n")\n';
  const made = Bun.spawnSync(['python3', '-c', script, file, String(Math.max(1, Math.round(bytes / 2 ** 20)))]);
  if (made.exitCode !== 0) throw new Error('could not build the remote benchmark archive');
  return file;
}

/** What a sync's answer says it uploaded ('-' for another step). */
function bytesSent(step: Step): string {
  return step.answer?.bytes_sent === undefined ? '-' : humanBytes(step.answer.bytes_sent);
}

export async function remoteReport(options: { scratch: string; bytes: number }): Promise<string> {
  const archive = makeArchive(options.scratch, options.bytes);
  const size = fs.statSync(archive).size;
  const entry = 'data/f00000.bin';
  const rows: string[] = [];
  const notes: string[] = [];
  const home = (name: string) => path.join(options.scratch, `remote-home-${name}`);
  const run = (env: Record<string, string>, log: () => { sent: number; received: number }[], args: string[]) => {
    const before = log().length;
    const started = performance.now();
    const done = runZipfs(args, { env, stdin: args[0] === 'write' ? 'changed\n' : undefined, timeoutMs: 600_000 });
    const ms = performance.now() - started;
    if (done.code !== 0) throw new Error(`zipfs ${args.join(' ')}: ${done.stdout}${done.stderr}`);
    const seen = log().slice(before);
    const down = seen.reduce((sum, r) => sum + r.sent, 0);
    return { ms, requests: seen.length, down, up: seen.reduce((sum, r) => sum + r.received, 0), answer: done.json };
  };
  // moto logs no byte counts: its rows give the bytes up from the sync's answer, and no bytes down.
  const row = (store: string, what: string, step: Step, s3 = false) =>
    rows.push(
      `| ${store} | ${what} | ${step.ms.toFixed(0)} ms | ${step.requests} | ${s3 ? '-' : humanBytes(step.down)} | ` +
        `${s3 ? bytesSent(step) : humanBytes(step.up)} |`,
    );

  if (missing(NGINX) === '') {
    const server = await startHttps();
    try {
      fs.copyFileSync(archive, path.join(server.root, 'a.zip'));
      const env = { ZIPFS_HOME: home('https'), ZIPFS_CA_FILE: server.ca };
      const all = () => server.requests().map((r) => ({ sent: r.sent, received: r.received }));
      const open = run(env, all, ['open', `${server.url}a.zip`, '--json']);
      row('HTTPS (nginx)', 'open, lazy', open);
      const read = run(env, all, ['read', entry, '--encoding', 'base64', '--limit', '16', '--json']);
      row('HTTPS (nginx)', 'read one 1 MiB entry', read);
      rows.push(
        `| HTTPS (nginx) | same read, re-reading the directory per call (remotezip) | - | ` +
          `${open.requests + read.requests} | ${humanBytes(open.down + read.down)} | - |`,
      );
      const started = performance.now();
      const response = await fetch(`${server.url}a.zip`, { tls: { ca: fs.readFileSync(server.ca, 'utf8') } } as never);
      const got = (await response.arrayBuffer()).byteLength;
      rows.push(
        `| HTTPS (nginx) | download the whole archive | ${(performance.now() - started).toFixed(0)} ms | 1 | ` +
          `${humanBytes(got)} | - |`,
      );
    } finally {
      server.stop();
    }
  } else notes.push(`HTTPS skipped: ${missing(NGINX)}`);

  if (missing(APACHE) === '') {
    const server = await startWebdav();
    try {
      const target = path.join(server.root, 'a.zip');
      fs.copyFileSync(archive, target);
      const then = new Date(Date.now() - 60_000);
      fs.utimesSync(target, then, then); // Apache gives a file changed this second a weak ETag
      if (process.getuid?.() === 0) Bun.spawnSync(['chown', '-R', 'www-data:www-data', server.root]);
      const env = { ZIPFS_HOME: home('dav') };
      const all = () => server.requests().map((r) => ({ sent: r.sent, received: r.received }));
      row('WebDAV (Apache)', 'open, lazy', run(env, all, ['open', `${server.url}a.zip`, '--json']));
      run(env, all, ['write', 'notes/readme.txt']);
      row('WebDAV (Apache)', 'sync one changed small entry (PUT whole)', run(env, all, ['sync', '--json']));
    } finally {
      server.stop();
    }
  } else notes.push(`WebDAV skipped: ${missing(APACHE)}`);

  const moto = motoServer();
  if (moto) {
    const s3 = await startS3(moto);
    try {
      await s3.put('bucket1', 'a.zip', fs.readFileSync(archive));
      const env = {
        ZIPFS_HOME: home('s3'),
        AWS_ACCESS_KEY_ID: 'AKIDBENCH',
        AWS_SECRET_ACCESS_KEY: 'bench',
        AWS_REGION: 'us-east-1',
        AWS_ENDPOINT_URL: s3.endpoint,
      };
      const all = () => s3.requests().map(() => ({ sent: 0, received: 0 }));
      row('S3 (moto)', 'open, lazy', run(env, all, ['open', 's3://bucket1/a.zip', '--json']), true);
      run(env, all, ['write', 'notes/readme.txt']);
      row('S3 (moto)', 'sync one changed small entry (part copies)', run(env, all, ['sync', '--json']), true);
    } finally {
      s3.stop();
    }
  } else notes.push('S3 skipped: no moto_server');

  return [
    `### Remote archives: ${humanBytes(size)} archive on loopback servers`,
    '',
    '| Store | Step | Time | Requests | Bytes down | Bytes up |',
    '|---|---|---|---|---|---|',
    ...rows,
    '',
    ...notes.map((note) => `${note}.`),
    'A sync first fetches what the session never read (the copy check reads every entry it copies once); moto logs ' +
      'no byte counts.',
    '',
  ].join('\n');
}
