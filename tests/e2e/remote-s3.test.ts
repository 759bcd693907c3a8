/**
 * Archives on S3 (issue 34), against moto's S3 server on loopback (an S3-compatible store that
 * answers ranges, and 412 to a GET or a PUT whose If-Match is stale; it does not check
 * CompleteMultipartUpload's, which zipfs does not use yet). zipfs signs its own requests (SigV4)
 * with credentials from the AWS variables. Through the compiled binary, as a CLI.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'bun:test';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BINARY } from '../helpers/ensure-binary.ts';
import { sandbox } from '../helpers/cli.ts';
import { rawZip, type RawEntry } from '../helpers/raw-zip.ts';
import { motoServer, startS3, type S3Server } from '../helpers/remote-servers.ts';

const ENTRIES: RawEntry[] = Array.from({ length: 12 }, (_, i) => {
  let text = `entry ${i}\n`;
  for (let n = 0; text.length < 40 * 1024; n++) text += `${(n * 2654435761 + i).toString(36)} line ${n}\n`;
  if (i === 4) text += 'the needle is here\n';
  return { name: `data/e${String(i).padStart(2, '0')}.txt`, data: text, method: 0, unixMode: 0o100644 };
});
const ARCHIVE = rawZip(ENTRIES);
const SECRET = 'sEcReT/never+shown+k3y';
const moto = motoServer();
const SKIPPED = ' (skipped: needs moto_server: pip install "moto[server]"; .ci/run does)';

describe.skipIf(!moto)(`an archive on S3 (moto_server)${moto ? '' : SKIPPED}`, () => {
  let s3: S3Server;
  let box: ReturnType<typeof sandbox>;
  beforeAll(async () => {
    s3 = await startS3(moto!);
  });
  afterAll(() => s3?.stop());
  beforeEach(() => (box = sandbox()));
  afterEach(() => box.cleanup());
  const env = () => ({
    AWS_ACCESS_KEY_ID: 'AKIDZIPFSTEST',
    AWS_SECRET_ACCESS_KEY: SECRET,
    AWS_REGION: 'us-east-1',
    AWS_ENDPOINT_URL: s3.endpoint,
  });

  /** An entry of the object now, read by Python's zipfile. */
  async function entryNow(key: string, entry: string): Promise<string> {
    const file = path.join(box.dir, 'now.zip');
    fs.writeFileSync(file, await s3.get('bucket1', key));
    const script = 'import sys,zipfile;print(zipfile.ZipFile(sys.argv[1]).read(sys.argv[2]).decode(),end="")';
    return spawnSync('python3', ['-c', script, file, entry], { encoding: 'utf8' }).stdout;
  }

  it('opens lazily, reads one entry by one range, greps, and syncs with If-Match and a backup object', async () => {
    await s3.put('bucket1', 'a.zip', ARCHIVE);
    s3.mark();
    const runs = [box.run(['open', 's3://bucket1/a.zip', '--endpoint', s3.endpoint, '--json'], { env: env() })];
    expect(runs[0]!.json.not_extracted).toBe(12);
    expect(runs[0]!.json.name).toBe('a');
    expect(s3.requests().length).toBeLessThanOrEqual(2);
    s3.mark();
    runs.push(box.run(['read', 'data/e01.txt'], { env: env() }));
    expect(runs.at(-1)!.stdout.startsWith('entry 1\n')).toBe(true);
    expect(s3.requests()).toStrictEqual([{ method: 'GET', path: '/bucket1/a.zip', status: 206 }]);
    runs.push(box.run(['grep', 'needle'], { env: env() }));
    expect(runs.at(-1)!.stdout).toContain('data/e04.txt:');
    runs.push(box.run(['write', 'data/e02.txt'], { env: env(), stdin: 'changed on S3\n' }));
    runs.push(box.run(['sync', '--json'], { env: env() }));
    const synced = runs.at(-1)!.json;
    expect(synced.synced).toBe(true);
    expect(synced.bytes_sent).toBeGreaterThan(0);
    expect(synced.backup_path).toContain('s3://bucket1/a.zip.bak');
    expect(await entryNow('a.zip', 'data/e02.txt')).toBe('changed on S3\n');
    expect(await entryNow('a.zip.bak', 'data/e02.txt')).toStartWith('entry 2\n');
    for (const run of runs) expect(run.stdout + run.stderr).not.toContain(SECRET);
    const files = fs.readdirSync(box.home, { recursive: true, withFileTypes: true }).filter((f) => f.isFile());
    for (const file of files)
      expect(fs.readFileSync(path.join(file.parentPath, file.name), 'latin1')).not.toContain(SECRET);
  });

  it('two data folders syncing one object at once: one wins, the other gets a conflict, then merges', async () => {
    await s3.put('bucket1', 'shared.zip', ARCHIVE);
    const other = sandbox();
    try {
      for (const [one, file] of [
        [box, 'data/e03.txt'],
        [other, 'data/e07.txt'],
      ] as const) {
        expect(one.run(['open', 's3://bucket1/shared.zip'], { env: env() }).code).toBe(0);
        expect(one.run(['write', file], { env: env(), stdin: `${file} from ${one.home}\n` }).code).toBe(0);
      }
      const both = await Promise.all(
        [box, other].map(async (one) => {
          const child = Bun.spawn([BINARY, 'sync', '--json'], {
            env: { ...process.env, ...env(), ZIPFS_HOME: one.home, NO_COLOR: '1', ZIPFS_SESSION: '' },
            stdout: 'pipe',
            stderr: 'pipe',
          });
          const [out] = await Promise.all([new Response(child.stdout).text(), child.exited]);
          return { one, answer: JSON.parse(out) };
        }),
      );
      const lost = both.filter((b) => b.answer.error?.code === 'CONFLICT_DETECTED');
      expect([both.filter((b) => b.answer.synced === true).length, lost.length]).toStrictEqual([1, 1]);
      expect(lost[0]!.one.run(['sync', '--merge', '--json'], { env: env() }).json.synced).toBe(true);
      expect(await entryNow('shared.zip', 'data/e03.txt')).toBe(`data/e03.txt from ${box.home}\n`);
      expect(await entryNow('shared.zip', 'data/e07.txt')).toBe(`data/e07.txt from ${other.home}\n`);
    } finally {
      other.cleanup();
    }
  });

  it('without credentials, open says which variables to set', () => {
    const refused = box.run(['open', 's3://bucket1/a.zip', '--json'], {
      env: { AWS_ENDPOINT_URL: s3.endpoint, AWS_SHARED_CREDENTIALS_FILE: path.join(box.dir, 'none') },
    });
    expect(refused.json.error.code).toBe('PERMISSION_DENIED');
    expect(refused.json.error.message).toContain('AWS_ACCESS_KEY_ID');
  });
});

describe.skipIf(!moto)(`a big archive on S3: unchanged bytes are copied on the server${moto ? '' : SKIPPED}`, () => {
  it('syncs one changed small entry sending about the minimum part, not the archive', async () => {
    const s3 = await startS3(moto!);
    const box = sandbox();
    try {
      const big = new Uint8Array(12 * 1024 * 1024);
      for (let i = 0; i < big.length; i += 65536) crypto.getRandomValues(big.subarray(i, i + 65536));
      const archive = rawZip([
        { name: 'big.bin', data: big, method: 0, unixMode: 0o100644 },
        { name: 'small.txt', data: 'small\n', method: 0, unixMode: 0o100644 },
      ]);
      await s3.put('bucket1', 'big.zip', archive);
      const env = {
        AWS_ACCESS_KEY_ID: 'AKIDZIPFSTEST',
        AWS_SECRET_ACCESS_KEY: SECRET,
        AWS_REGION: 'us-east-1',
        AWS_ENDPOINT_URL: s3.endpoint,
      };
      expect(box.run(['open', 's3://bucket1/big.zip'], { env }).code).toBe(0);
      expect(box.run(['write', 'small.txt'], { env, stdin: 'changed\n' }).code).toBe(0);
      s3.mark();
      const synced = box.run(['sync', '--json'], { env }).json;
      expect(synced.synced).toBe(true);
      // The minimum part (5 MiB) holds the change; the rest of the 12 MiB entry is copied on the server.
      expect(synced.bytes_sent).toBeLessThan(5.5 * 1024 * 1024);
      expect(s3.requests().filter((r) => r.method === 'PUT' && r.path.includes('partNumber=')).length).toBe(2);
      const now = await s3.get('bucket1', 'big.zip');
      const file = path.join(box.dir, 'now.zip');
      fs.writeFileSync(file, now);
      const script =
        'import sys,zipfile;z=zipfile.ZipFile(sys.argv[1]);' +
        'print(z.read("small.txt").decode(),end="");print(z.testzip())';
      expect(spawnSync('python3', ['-c', script, file], { encoding: 'utf8' }).stdout).toBe('changed\nNone\n');
      expect(Buffer.compare(Buffer.from(now.subarray(30 + 'big.bin'.length, 30 + 7 + big.length)), big)).toBe(0);
    } finally {
      box.cleanup();
      s3.stop();
    }
  });
});

/**
 * A proxy on loopback between zipfs and moto that counts the body bytes each way: what the store sent and received,
 * measured at the server's door, whatever zipfs says.
 */
function countingProxy(target: string) {
  const counted = { down: 0, up: 0 };
  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const body = ['GET', 'HEAD'].includes(request.method) ? undefined : new Uint8Array(await request.arrayBuffer());
      counted.up += body?.length ?? 0;
      const headers = new Headers(request.headers);
      headers.delete('host');
      const answer = await fetch(`${target}${url.pathname}${url.search}`, {
        method: request.method,
        headers,
        body,
        redirect: 'manual',
        decompress: false,
      });
      const bytes = request.method === 'HEAD' ? null : new Uint8Array(await answer.arrayBuffer());
      counted.down += bytes?.length ?? 0;
      const back = new Headers(answer.headers);
      for (const name of ['content-encoding', 'transfer-encoding', 'connection']) back.delete(name);
      if (bytes) back.delete('content-length');
      return new Response(bytes, { status: answer.status, headers: back });
    },
  });
  return { endpoint: `http://127.0.0.1:${server.port}`, counted, stop: () => server.stop(true) };
}

/** 240 entries, incompressible (sizes are real): 200 of 120 KiB, and every sixth a small text; 24.6 MB zipped. */
function bigEntries(): RawEntry[] {
  return Array.from({ length: 240 }, (_, i) => {
    const name = `data/f${String(i).padStart(3, '0')}.${i % 6 === 5 ? 'txt' : 'bin'}`;
    if (i % 6 === 5) return { name, data: `small ${i}\n`.repeat(40), method: 0, unixMode: 0o100644 };
    const data = new Uint8Array(120 * 1024);
    for (let at = 0; at < data.length; at += 65536) crypto.getRandomValues(data.subarray(at, at + 65536));
    return { name, data, method: 0, unixMode: 0o100644 };
  });
}

describe.skipIf(!moto)(`a 24 MB archive on S3: a sync fetches no unread range${moto ? '' : SKIPPED}`, () => {
  const MiB = 1024 * 1024;
  let s3: S3Server;
  let proxy: ReturnType<typeof countingProxy>;
  let box: ReturnType<typeof sandbox>;
  const entries = bigEntries();
  const archive = rawZip(entries);
  beforeAll(async () => {
    s3 = await startS3(moto!);
    proxy = countingProxy(s3.endpoint);
  });
  afterAll(() => {
    proxy?.stop();
    s3?.stop();
  });
  beforeEach(() => (box = sandbox()));
  afterEach(() => box.cleanup());

  /** zipfs in the data folder `home`, spawned without blocking: the proxy answers from this process. */
  async function zipfs(home: string, args: string[], stdin?: string) {
    const child = Bun.spawn([BINARY, ...args], {
      env: {
        ...process.env,
        AWS_ACCESS_KEY_ID: 'AKIDZIPFSTEST',
        AWS_SECRET_ACCESS_KEY: SECRET,
        AWS_REGION: 'us-east-1',
        AWS_ENDPOINT_URL: proxy.endpoint,
        ZIPFS_HOME: home,
        NO_COLOR: '1',
        ZIPFS_SESSION: '',
      },
      stdin: stdin === undefined ? 'ignore' : new TextEncoder().encode(stdin),
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [out, err] = await Promise.all([
      new Response(child.stdout).text(),
      new Response(child.stderr).text(),
      child.exited,
    ]);
    expect(out + err).not.toContain(SECRET);
    return { code: child.exitCode, out, err, json: () => JSON.parse(out) };
  }

  /** `key` now, downloaded whole, through python's zipfile and 7-Zip: every entry's CRC-32 checked. */
  async function testedWhole(key: string): Promise<string> {
    const file = path.join(box.dir, 'now.zip');
    fs.writeFileSync(file, await s3.get('bucket1', key));
    const script = 'import sys,zipfile;z=zipfile.ZipFile(sys.argv[1]);print(z.testzip(),len(z.namelist()))';
    expect(spawnSync('python3', ['-c', script, file], { encoding: 'utf8' }).stdout).toBe('None 240\n');
    if (Bun.which('7zz')) expect(spawnSync('7zz', ['t', file], { encoding: 'utf8' }).status).toBe(0);
    return file;
  }

  it('fetches and sends about one minimum part, and every entry reads back after', async () => {
    await s3.put('bucket1', 'big.zip', archive);
    const opened = (await zipfs(box.home, ['open', 's3://bucket1/big.zip', '--json'])).json();
    expect(opened.not_extracted).toBe(240);
    expect((await zipfs(box.home, ['write', 'data/f119.txt'], 'changed in the middle\n')).code).toBe(0);
    const before = { ...proxy.counted };
    expect((await zipfs(box.home, ['sync', '--json'])).json().synced).toBe(true);
    // Fetched: the tail read (128 KiB) and what fills the part of new bytes up to S3's 5 MiB minimum; not the rest.
    expect(proxy.counted.down - before.down).toBeLessThan(5.5 * MiB);
    // Sent: the changed entry, that filling, and the directory.
    expect(proxy.counted.up - before.up).toBeLessThan(5.5 * MiB);
    expect(archive.length).toBeGreaterThan(23 * MiB);
    await testedWhole('big.zip');

    // A second sync of the session, over a mirror that is sparse where the store copied: as little again.
    expect((await zipfs(box.home, ['write', 'data/f005.txt'], 'changed near the start\n')).code).toBe(0);
    const second = { ...proxy.counted };
    expect((await zipfs(box.home, ['sync', '--json'])).json().synced).toBe(true);
    expect(proxy.counted.down - second.down).toBeLessThan(5.5 * MiB);
    expect(proxy.counted.up - second.up).toBeLessThan(5.5 * MiB);
    await testedWhole('big.zip');

    // zipfs reads every entry after the syncs: the ones copied on the server, which the mirror records as not
    // there, are fetched now (most of the archive), none read as the zeros of a hole.
    const folder = opened.workspace_path as string;
    const third = proxy.counted.down;
    expect((await zipfs(box.home, ['extract'])).code).toBe(0);
    expect(proxy.counted.down - third).toBeGreaterThan(12 * MiB);
    const now: Record<number, string> = { 5: 'changed near the start\n', 119: 'changed in the middle\n' };
    for (const [i, entry] of entries.entries()) {
      const expected = Buffer.from(now[i] ?? (entry.data as Uint8Array));
      expect(Buffer.compare(fs.readFileSync(path.join(folder, entry.name)), expected)).toBe(0);
    }
  });

  it('a session whose mirror is sparse after its sync merges the version another writer made', async () => {
    await s3.put('bucket1', 'merge.zip', archive);
    const other = sandbox();
    try {
      for (const home of [box.home, other.home])
        expect((await zipfs(home, ['open', 's3://bucket1/merge.zip'])).code).toBe(0);
      expect((await zipfs(box.home, ['write', 'data/f119.txt'], 'ours\n')).code).toBe(0);
      expect((await zipfs(box.home, ['sync', '--json'])).json().synced).toBe(true); // sparse now
      expect((await zipfs(other.home, ['write', 'data/f005.txt'], 'theirs\n')).code).toBe(0);
      expect((await zipfs(other.home, ['sync', '--json'])).json().error.code).toBe('CONFLICT_DETECTED');
      expect((await zipfs(other.home, ['sync', '--merge', '--json'])).json().synced).toBe(true);
      expect((await zipfs(box.home, ['write', 'data/f203.txt'], 'ours again\n')).code).toBe(0);
      expect((await zipfs(box.home, ['sync', '--json'])).json().error.code).toBe('CONFLICT_DETECTED');
      const merged = await zipfs(box.home, ['sync', '--merge', '--json']);
      expect(merged.json().synced).toBe(true);
      const file = await testedWhole('merge.zip');
      const script =
        'import sys,zipfile;z=zipfile.ZipFile(sys.argv[1]);print(*(z.read(n).decode() for n in sys.argv[2:]))';
      const read = spawnSync('python3', ['-c', script, file, 'data/f005.txt', 'data/f119.txt', 'data/f203.txt'], {
        encoding: 'utf8',
      });
      expect(read.stdout).toBe('theirs\n ours\n ours again\n\n');
      expect((await zipfs(box.home, ['read', 'data/f005.txt'])).out).toBe('theirs\n');
      expect((await zipfs(box.home, ['read', 'data/f011.txt'])).out).toBe('small 11\n'.repeat(40));
    } finally {
      other.cleanup();
    }
  });
});
