/**
 * Real servers on loopback for the remote-archive tests (src/remote/): Apache with mod_dav (WebDAV,
 * ETag preconditions that answer 412) and nginx (HTTPS ranges, with a test CA made by openssl).
 * Each starts in a temporary folder on a free port, logs every request with the bytes it moved,
 * and stops when the test says. Without the binary, `missing` says which, for a visible skip.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { signS3 } from '../../src/remote/s3-sign.ts';

export const APACHE = '/usr/sbin/apache2';
export const NGINX = '/usr/sbin/nginx';
export const HTPASSWD = '/usr/bin/htpasswd';

/** What a test needs that is not installed, for the skip's reason ('' when all is there). */
export function missing(...programs: string[]): string {
  const absent = programs.filter((program) => !fs.existsSync(program));
  return absent.length > 0 ? `needs ${absent.join(', ')} (apt-get install apache2 nginx-light)` : '';
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

export interface LoggedRequest {
  method: string;
  path: string;
  status: number;
  /** Bytes of the request (headers and body) and of the answer (headers and body), as the server counted. */
  received: number;
  sent: number;
  range: string;
  /** The request's If-Match header ('-' without one). */
  ifMatch: string;
}

export interface Server {
  /** The URL of the served folder, ending in `/`. */
  url: string;
  /** The folder served. */
  root: string;
  /** Every request so far, in order. */
  requests(): LoggedRequest[];
  /** Forget the requests so far (the log is read from here on). */
  mark(): void;
  stop(): void;
}

function logReader(file: string): Pick<Server, 'requests' | 'mark'> {
  let from = 0;
  const all = () =>
    fs.existsSync(file)
      ? fs
          .readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((line) => {
            const [method, url, status, received, sent, range, ifMatch] = line.split('\t');
            return {
              method: method!,
              path: url!,
              status: Number(status),
              received: Number(received),
              sent: Number(sent),
              range: range ?? '-',
              ifMatch: ifMatch ?? '-',
            };
          })
      : [];
  return {
    requests: () => all().slice(from),
    mark: () => {
      from = all().length;
    },
  };
}

async function waitForPort(port: number): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return;
    await Bun.sleep(50);
  }
  throw new Error(`no server came up on port ${port}`);
}

/** Apache with mod_dav on a free loopback port; with `user`, Basic authentication for that user and password. */
export async function startWebdav(options: { user?: string; password?: string } = {}): Promise<Server> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-dav-'));
  fs.chmodSync(dir, 0o755); // Apache's workers (www-data, under root) must reach the folder it serves
  const root = path.join(dir, 'www');
  fs.mkdirSync(root);
  const port = await freePort();
  const modules = '/usr/lib/apache2/modules';
  const load = ['mpm_event', 'authz_core', 'authn_core', 'authn_file', 'auth_basic', 'authz_user', 'dav', 'dav_fs']
    .map((name) => `LoadModule ${name}_module ${modules}/mod_${name}.so`)
    .join('\n');
  const auth = options.user
    ? `AuthType Basic\nAuthName zipfs\nAuthUserFile ${dir}/users\nRequire valid-user`
    : 'Require all granted';
  if (options.user) {
    const made = spawnSync(HTPASSWD, ['-bc', `${dir}/users`, options.user, options.password ?? '']);
    if (made.status !== 0) throw new Error(`htpasswd failed: ${made.stderr}`);
  }
  // As root, Apache's workers run as www-data: the served folder and the lock database must be theirs to write.
  const asRoot = process.getuid?.() === 0;
  fs.writeFileSync(
    path.join(dir, 'httpd.conf'),
    `ServerRoot ${dir}
ServerName localhost
Listen 127.0.0.1:${port}
${load}
${asRoot ? 'User www-data\nGroup www-data' : ''}
PidFile ${dir}/httpd.pid
ErrorLog ${dir}/error.log
LogFormat "%m\\t%U\\t%>s\\t%I\\t%O\\t%{Range}i\\t%{If-Match}i" zipfs
CustomLog ${dir}/access.log zipfs
DavLockDB ${dir}/lock/davlock
LimitRequestBody 0
DocumentRoot ${root}
<Directory ${root}>
  Dav On
  AllowOverride None
  ${auth}
</Directory>
`,
  );
  fs.mkdirSync(path.join(dir, 'lock'));
  if (asRoot) spawnSync('chown', ['-R', 'www-data:www-data', root, path.join(dir, 'lock')]);
  const started = spawnSync(APACHE, ['-f', path.join(dir, 'httpd.conf'), '-k', 'start'], { encoding: 'utf8' });
  if (started.status !== 0) throw new Error(`apache2 did not start: ${started.stderr}`);
  await waitForPort(port);
  return {
    url: `http://127.0.0.1:${port}/`,
    root,
    ...logReader(path.join(dir, 'access.log')),
    stop() {
      spawnSync(APACHE, ['-f', path.join(dir, 'httpd.conf'), '-k', 'stop']);
      const pid = Number(fs.readFileSync(path.join(dir, 'httpd.pid'), 'utf8').trim() || 0);
      for (let i = 0; i < 100 && pid && alive(pid); i++) Bun.sleepSync(20);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** nginx serving a folder over HTTPS (certificate signed by a CA made here: `ca` is its file), ranges on. */
export async function startHttps(): Promise<Server & { ca: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-nginx-'));
  const root = path.join(dir, 'www');
  fs.mkdirSync(root);
  const port = await freePort();
  const ssl = (args: string[]) => {
    const made = spawnSync('openssl', args, { cwd: dir, encoding: 'utf8' });
    if (made.status !== 0) throw new Error(`openssl ${args[0]} failed: ${made.stderr}`);
  };
  ssl([
    'req',
    '-x509',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.pem',
    '-days',
    '2',
    '-subj',
    '/CN=zipfs test CA',
  ]);
  ssl([
    'req',
    '-newkey',
    'rsa:2048',
    '-nodes',
    '-keyout',
    'server.key',
    '-out',
    'server.csr',
    '-subj',
    '/CN=localhost',
  ]);
  fs.writeFileSync(path.join(dir, 'ext.cnf'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  ssl([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'ext.cnf',
  ]);
  const asRoot = process.getuid?.() === 0;
  fs.writeFileSync(
    path.join(dir, 'nginx.conf'),
    `${asRoot ? 'user root;' : ''}
worker_processes 1;
daemon on;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log;
events { worker_connections 64; }
http {
  access_log off;
  client_body_temp_path ${dir}/body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  log_format zipfs "$request_method\\t$uri\\t$status\\t$request_length\\t$bytes_sent"
    "\\t$http_range\\t$http_if_match";
  server {
    listen 127.0.0.1:${port} ssl;
    ssl_certificate ${dir}/server.pem;
    ssl_certificate_key ${dir}/server.key;
    access_log ${dir}/access.log zipfs;
    root ${root};
    location /norange/ { max_ranges 0; }
    location = /moved.zip { return 302 /a.zip; }
  }
}
`,
  );
  const started = spawnSync(NGINX, ['-c', path.join(dir, 'nginx.conf'), '-p', dir], { encoding: 'utf8' });
  if (started.status !== 0) throw new Error(`nginx did not start: ${started.stderr}`);
  await waitForPort(port);
  return {
    url: `https://localhost:${port}/`,
    root,
    ca: path.join(dir, 'ca.pem'),
    ...logReader(path.join(dir, 'access.log')),
    stop() {
      spawnSync(NGINX, ['-c', path.join(dir, 'nginx.conf'), '-p', dir, '-s', 'stop']);
      const pidFile = path.join(dir, 'nginx.pid');
      for (let i = 0; i < 100 && fs.existsSync(pidFile); i++) Bun.sleepSync(20);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** moto's S3 server: on PATH, or in .cache/py (where .ci/run installs it). */
export function motoServer(): string | undefined {
  const cached = path.join(import.meta.dir, '..', '..', '.cache', 'py', 'bin', 'moto_server');
  if (fs.existsSync(cached)) return cached;
  const found = Bun.which('moto_server');
  if (!found) return undefined;
  // A pyenv shim starts the server as its child: the real script is run instead, so that stopping it stops the server.
  if (!fs.readFileSync(found, 'utf8').includes('pyenv')) return found;
  const real = spawnSync('pyenv', ['which', 'moto_server'], { encoding: 'utf8' }).stdout.trim();
  return real || found;
}

export interface S3Server {
  /** The endpoint, e.g. http://127.0.0.1:PORT. */
  endpoint: string;
  /** Requests so far (method, path, status), from the server's log. */
  requests(): { method: string; path: string; status: number }[];
  mark(): void;
  /** Puts `bytes` at `key` in `bucket` (made when missing), unsigned: moto does not check. */
  put(bucket: string, key: string, bytes: Uint8Array): Promise<void>;
  /** The object's bytes now. */
  get(bucket: string, key: string): Promise<Uint8Array>;
  stop(): void;
}

/** moto_server (an S3-compatible store: ranges, If-Match on GET and PUT, multipart, copies) on a free port. */
export async function startS3(binary: string): Promise<S3Server> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-s3-'));
  const port = await freePort();
  const log = path.join(dir, 'requests.log');
  const child = Bun.spawn([binary, '-H', '127.0.0.1', '-p', String(port)], {
    stdout: 'ignore',
    stderr: Bun.file(log),
  });
  await waitForPort(port);
  const endpoint = `http://127.0.0.1:${port}`;
  let from = 0;
  const all = () =>
    (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '')
      .split('\n')
      .map((line) => line.match(/"([A-Z]+) (\S+) HTTP\/[\d.]+" (\d+)/))
      .filter((match) => match !== null)
      .map((match) => ({ method: match[1]!, path: match[2]!, status: Number(match[3]) }));
  const made = new Set<string>();
  return {
    endpoint,
    requests: () => all().slice(from),
    mark: () => {
      from = all().length;
    },
    async put(bucket, key, bytes) {
      if (!made.has(bucket)) {
        await fetch(`${endpoint}/${bucket}`, { method: 'PUT' });
        made.add(bucket);
      }
      const response = await fetch(`${endpoint}/${bucket}/${key}`, { method: 'PUT', body: bytes });
      if (!response.ok) throw new Error(`moto refused the PUT: ${response.status}`);
    },
    async get(bucket, key) {
      // moto answers an unsigned GET 403: signed (it checks no keys), by the signer the tests check against AWS's.
      const url = `${endpoint}/${bucket}/${key}`;
      const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' };
      const headers = signS3('GET', url, {}, { credentials, region: 'us-east-1' });
      return new Uint8Array(await (await fetch(url, { headers })).arrayBuffer());
    },
    stop() {
      child.kill();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}
