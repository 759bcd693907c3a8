/**
 * What open's answer tells an agent before its next call (issue 21, point 6):
 * the links it will find as plain files, as inspect warns, and the other
 * sessions that make a call without `session` ambiguous from now on.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip, symlinkZip } from '../helpers/fixtures.ts';
import { call, connect } from '../helpers/mcp-client.ts';

let box: ReturnType<typeof sandbox>;
beforeEach(() => {
  box = sandbox();
});
afterEach(() => box.cleanup());

describe('open', () => {
  it('carries the warnings inspect gives, and names the other open sessions, on both surfaces', async () => {
    const links = writeZip(box.dir, 'links.zip', symlinkZip());
    const inspected = box.run(['inspect', links, '--json']).json.warnings;
    const first = box.run(['open', links, '--json']).json;
    expect(first.warnings).toStrictEqual(inspected);
    expect(first.other_sessions).toBeUndefined();
    const reports = writeZip(box.dir, 'reports.zip', reportsZip());
    const mcp = await connect(box.home);
    try {
      const second = (await call(mcp.client, 'zipfs_open', { path: reports })).data;
      expect(second.other_sessions).toStrictEqual(['links']);
      expect(second.warnings).toBeUndefined();
      // two open: this connection's unnamed calls go to the one it opened (issue 31)
      expect((await call(mcp.client, 'zipfs_status')).isError).toBe(false);
    } finally {
      await mcp.close();
    }
    const cli = box.run(['open', reports, '--name', 'third']);
    expect(cli.stderr).toContain(
      '2 other sessions open ("links", "reports"): name the session in later commands (-s third',
    );
  });
});
