/**
 * The one-time page an MCP user gives an archive's password on (URL mode elicitation, MCP 2025-11-25: a password
 * must not go through a form the client renders, nor through the model). It listens on 127.0.0.1 at a port the
 * system picks, under a path with 256 random bits in it; Host must name it exactly (DNS rebinding), an Origin, when
 * sent, must be its own; one password is taken, by a form POST, and then the page is gone (410), as it is when
 * closed. Nothing it receives is logged or written.
 */
import crypto from 'node:crypto';
import { refusalOf } from './request-guard.ts';

export interface PasswordPage {
  /** http://127.0.0.1:PORT/password/TOKEN */
  readonly url: string;
  /** The password, once the form is sent (UTF-8 bytes). */
  readonly submitted: Promise<Uint8Array>;
  /** Stops listening; the promise stays unsettled if nothing came. */
  close(): void;
}

/** The largest form taken: a password is short, and a large body is not one. */
const MAX_FORM_BYTES = 16 * 1024;

const SECURITY_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-frame-options': 'DENY',
  'content-security-policy':
    "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
};

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(status: number, title: string, body: string): Response {
  const html =
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
    '<style>body{font:16px system-ui,sans-serif;max-width:34em;margin:3em auto;padding:0 1em}' +
    'input{font:inherit;padding:.3em;width:100%;box-sizing:border-box}button{font:inherit;margin-top:.8em}</style>' +
    `</head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
  return new Response(html, { status, headers: SECURITY_HEADERS });
}

/** Equal in constant time (digests make the lengths equal). */
function samePath(given: string, expected: string): boolean {
  const digest = (text: string) => crypto.createHash('sha256').update(text).digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}

/** Starts the page for the archive named `archive` (its base name: the page shows it). */
export function startPasswordPage(archive: string): PasswordPage {
  const path = `/password/${crypto.randomBytes(32).toString('base64url')}`;
  let used = false;
  let deliver: (password: Uint8Array) => void = () => {};
  const submitted = new Promise<Uint8Array>((resolve) => {
    deliver = resolve;
  });
  const title = `zipfs: password for ${archive}`;
  const form = (note = '') =>
    page(
      200,
      title,
      `${note}<p>An agent working with zipfs needs the password of <b>${escapeHtml(archive)}</b> to decrypt its ` +
        'entries. It goes to the zipfs server on this computer only: the agent never sees it, and zipfs keeps it ' +
        'in memory for this connection, never on disk. This page works once.</p>' +
        `<form method="post" action="${path}"><label>Password<br>` +
        '<input type="password" name="password" autocomplete="off" autofocus required></label><br>' +
        '<button type="submit">Give the password</button></form>',
    );

  const server = Bun.serve({
    hostname: '127.0.0.1',
    port: 0,
    async fetch(request) {
      const refused = refusalOf(request.headers, { local: true, port: () => server.port ?? 0 });
      const origin = request.headers.get('origin');
      if (refused || (origin !== null && origin !== `http://127.0.0.1:${server.port}`))
        return page(403, 'Refused', '<p>This page answers its own origin on 127.0.0.1 only.</p>');
      if (!samePath(new URL(request.url).pathname, path)) return page(404, 'Not found', '<p>No such page.</p>');
      if (used) return page(410, 'Used already', '<p>This page took a password already; it works once.</p>');
      if (request.method === 'GET') return form();
      if (request.method !== 'POST') return new Response(null, { status: 405, headers: { allow: 'GET, POST' } });
      const declared = Number(request.headers.get('content-length') ?? 0);
      if (declared > MAX_FORM_BYTES) return page(413, 'Too large', '<p>That is not a password.</p>');
      const body = await request.text();
      if (body.length > MAX_FORM_BYTES) return page(413, 'Too large', '<p>That is not a password.</p>');
      const password = new URLSearchParams(body).get('password') ?? '';
      if (password === '') return form('<p><b>Give the password (the field was empty).</b></p>');
      if (used) return page(410, 'Used already', '<p>This page took a password already; it works once.</p>');
      used = true;
      deliver(new TextEncoder().encode(password));
      return page(200, 'Password received', '<p>zipfs has it. You can close this page and go back to the agent.</p>');
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}${path}`,
    submitted,
    close: () => void server.stop(true),
  };
}
