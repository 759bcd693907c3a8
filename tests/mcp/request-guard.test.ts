/** request-guard.ts in process: which Host, Origin and token a loopback or remote server takes. */
import { describe, expect, it } from 'bun:test';
import { isLoopbackHost, refusalOf } from '../../src/mcp/request-guard.ts';

const headers = (h: Record<string, string>) => new Headers(h);
const local = { local: true, port: () => 8808 };

describe('request guard', () => {
  it('calls loopback only the literals spelled exactly, and localhost', () => {
    for (const yes of ['127.0.0.1', '127.255.0.9', 'localhost', 'LocalHost', '::1'])
      expect(isLoopbackHost(yes), yes).toBe(true);
    for (const no of [
      '127.evil.example',
      '127.0.0.1.nip.io',
      '127.1',
      '127.0.0.01',
      '127.0.0.256',
      '0x7f.0.0.1',
      '2130706433',
      'localhost.',
      '::ffff:127.0.0.1',
      '',
    ])
      expect(isLoopbackHost(no), no).toBe(false);
  });

  it('wants this port on a loopback bind, and any Host name with the token on a remote one', () => {
    expect(refusalOf(headers({ host: 'localhost:8808' }), local)).toBeUndefined();
    expect(refusalOf(headers({ host: 'localhost:8809' }), local)?.status).toBe(403);
    expect(refusalOf(headers({ host: 'localhost' }), local)?.status).toBe(403);
    expect(refusalOf(headers({ host: 'localhost' }), { local: true, port: () => 80 })).toBeUndefined();
    const remote = { local: false, port: () => 8808, token: 'secret' };
    expect(refusalOf(headers({ host: 'build.lan:8808', authorization: 'Bearer secret' }), remote)).toBeUndefined();
    expect(
      refusalOf(
        headers({ host: 'build.lan:8808', origin: 'http://build.lan:8808', authorization: 'Bearer secret' }),
        remote,
      ),
    ).toBeUndefined();
    expect(
      refusalOf(
        headers({ host: 'build.lan:8808', origin: 'http://evil.example', authorization: 'Bearer secret' }),
        remote,
      )?.status,
    ).toBe(403);
    for (const wrong of ['', 'Bearer secre', 'Bearer secreT', 'Bearer secret!']) {
      expect(refusalOf(headers({ host: 'build.lan:8808', authorization: wrong }), remote)?.status, wrong).toBe(401);
    }
  });
});
