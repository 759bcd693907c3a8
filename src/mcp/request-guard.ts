/**
 * Who may talk to `zipfs mcp --http`: the Host and Origin rules against DNS
 * rebinding, and the bearer token. A rebinding page makes the browser send its
 * own name as Host (`127.evil.example`, `127.0.0.1.nip.io` resolve to
 * 127.0.0.1), so a name is never judged by how it looks: loopback means a
 * loopback IP literal spelled exactly, or `localhost`, which no DNS answer can
 * make point elsewhere for the browser that sent it.
 */
import crypto from 'node:crypto';

/** A dotted quad in 127.0.0.0/8, each part 0-255 in plain decimal ("127.1", "0x7f.0.0.1", "127.000.0.1" are not). */
function isLoopbackIpv4(host: string): boolean {
  const parts = /^127\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  return (
    parts !== null && parts.slice(1).every((part) => Number(part) <= 255 && (part === '0' || !part.startsWith('0')))
  );
}

/** A loopback address or `localhost`, as a bare hostname (IPv6 without brackets). */
export function isLoopbackHost(host: string): boolean {
  const lower = host.toLowerCase();
  return lower === 'localhost' || lower === '::1' || isLoopbackIpv4(lower);
}

/** "host", "host:port", "[v6]", "[v6]:port" -> hostname (no brackets) and port; undefined when malformed. */
export function splitHostPort(value: string): { host: string; port?: number } | undefined {
  const match = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\[\]\s/@]+))(?::(\d{1,5}))?$/.exec(value);
  if (!match) return undefined;
  return { host: (match[1] ?? match[2]!).toLowerCase(), port: match[3] === undefined ? undefined : Number(match[3]) };
}

/** An Origin header (`scheme://host[:port]`) -> its hostname and port, undefined for `null` or anything else. */
function originHostPort(origin: string): { host: string; port?: number } | undefined {
  const match = /^[a-z][a-z0-9+.-]*:\/\/(.+)$/i.exec(origin);
  return match ? splitHostPort(match[1]!) : undefined;
}

export interface GuardOptions {
  /** Listening on a loopback address: Host must then name this server exactly. */
  local: boolean;
  /** The port the server listens on (the one picked, for --http 0). */
  port(): number;
  /** ZIPFS_MCP_TOKEN, required on every request when set. */
  token?: string;
}

export type Refusal = { status: 403 | 401; message: string };

/**
 * Why a request is refused, or undefined. On a loopback bind, Host must be a
 * loopback literal or localhost with this server's port. An Origin, when sent,
 * must be a loopback one (any port: a local dev page) or the Host itself; with
 * --allow-remote the Host may be any name the clients use, and the bearer
 * token is what keeps a rebinding page out (it cannot know it).
 */
export function refusalOf(headers: Headers, options: GuardOptions): Refusal | undefined {
  const rawHost = headers.get('host') ?? '';
  const host = splitHostPort(rawHost);
  if (options.local && (!host || !isLoopbackHost(host.host) || (host.port ?? 80) !== options.port())) {
    return {
      status: 403,
      message:
        `Host ${JSON.stringify(rawHost)} is not this loopback server (give 127.0.0.1, localhost or [::1] ` +
        `with port ${options.port()}); zipfs refuses it (DNS rebinding protection).`,
    };
  }
  const origin = headers.get('origin');
  if (origin !== null) {
    const from = originHostPort(origin);
    const allowed =
      from !== undefined && (isLoopbackHost(from.host) || (host !== undefined && from.host === host.host));
    if (!allowed)
      return {
        status: 403,
        message:
          `Origin ${JSON.stringify(origin)} is not allowed; zipfs answers local clients and pages of its own ` +
          `host only (DNS rebinding protection).`,
      };
  }
  if (options.token !== undefined && !sameSecret(headers.get('authorization') ?? '', `Bearer ${options.token}`)) {
    return { status: 401, message: 'Missing or wrong bearer token: send Authorization: Bearer <ZIPFS_MCP_TOKEN>.' };
  }
  return undefined;
}

/** Equal in constant time: digests make the lengths equal, so neither length nor content leaks by timing. */
function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => crypto.createHash('sha256').update(text).digest();
  return crypto.timingSafeEqual(digest(given), digest(expected));
}
