/**
 * Sessions by connection (issue 31): an MCP connection's calls without `session` go to the session it
 * opened or named last, and `open` of a zip whose session another live client works in gives the
 * caller a session of its own and says whose the other is. Two agents over Streamable HTTP, two stdio
 * servers (two processes), and a zip replaced on disk.
 */
import { afterEach, beforeEach, describe, expect, it } from 'bun:test';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { strToU8, zipSync } from 'fflate';
import fs from 'node:fs';
import path from 'node:path';
import { httpAgent, startHttpServer } from '../helpers/http-server.ts';
import { sandbox, writeZip } from '../helpers/cli.ts';
import { reportsZip } from '../helpers/fixtures.ts';
import { call, connect } from '../helpers/mcp-client.ts';

let box: ReturnType<typeof sandbox>;
let stops: (() => void)[] = [];
beforeEach(() => (box = sandbox()));
afterEach(() => {
  for (const stop of stops) stop();
  stops = [];
  box.cleanup();
});

async function startHttp(): Promise<string> {
  const server = await startHttpServer(box.home);
  stops.push(server.stop);
  return server.url;
}

const agent = httpAgent;

describe('two agents on one zip over Streamable HTTP', () => {
  it('get a session each, and their calls without a session land in their own', async () => {
    const zip = writeZip(box.dir, 'site.zip', reportsZip());
    const url = await startHttp();
    const a = await agent(url, 'agent-a');
    const b = await agent(url, 'agent-b');
    try {
      const first = (await call(a, 'zipfs_open', { path: zip })).data;
      expect(first.name).toBe('site');
      expect(first.held_by).toBeUndefined();
      const second = (await call(b, 'zipfs_open', { path: zip })).data;
      expect(second.name).not.toBe('site'); // its own, not the first agent's
      expect(second.already_open).toBeUndefined();
      expect(second.held_by).toMatchObject({ session: 'site', holder: expect.stringContaining('agent-a') });
      expect(Date.parse(second.held_by.since)).not.toBeNaN();

      // No session named, two open: each agent's call goes to its own, not AMBIGUOUS_SESSION.
      expect((await call(a, 'zipfs_write', { path: 'from-a.txt', content: 'a' })).isError).toBe(false);
      expect((await call(b, 'zipfs_write', { path: 'from-b.txt', content: 'b' })).isError).toBe(false);
      expect((await call(a, 'zipfs_status')).data.added).toStrictEqual(['from-a.txt']);
      expect((await call(b, 'zipfs_status')).data.added).toStrictEqual(['from-b.txt']);
      expect((await call(a, 'zipfs_path')).data.path).toBe(first.workspace_path);
      expect((await call(b, 'zipfs_path')).data.path).toBe(second.workspace_path);

      // Its own session again when it opens the zip again; naming the other's shares it on purpose,
      // and then unnamed calls follow it.
      expect((await call(a, 'zipfs_open', { path: zip })).data).toMatchObject({ name: 'site', already_open: true });
      expect((await call(b, 'zipfs_status', { session: 'site' })).data.added).toStrictEqual(['from-a.txt']);
      expect((await call(b, 'zipfs_status')).data.added).toStrictEqual(['from-a.txt']);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('shares a session once the client that held it has gone', async () => {
    const zip = writeZip(box.dir, 'site.zip', reportsZip());
    const url = await startHttp();
    const a = await agent(url, 'agent-a');
    const opened = (await call(a, 'zipfs_open', { path: zip })).data;
    await (a.transport as StreamableHTTPClientTransport).terminateSession(); // DELETE: its MCP session ends
    await a.close();
    const c = await agent(url, 'agent-c');
    try {
      const again = (await call(c, 'zipfs_open', { path: zip })).data;
      expect(again).toMatchObject({ name: opened.name, already_open: true });
      expect(again.held_by).toBeUndefined();
    } finally {
      await c.close();
    }
  });
});

describe('two stdio servers (two processes) on one zip', () => {
  it('gives the second its own session, naming the first by its process', async () => {
    const zip = writeZip(box.dir, 'site.zip', reportsZip());
    const first = await connect(box.home);
    const second = await connect(box.home);
    try {
      expect((await call(first.client, 'zipfs_open', { path: zip })).data.name).toBe('site');
      const own = (await call(second.client, 'zipfs_open', { path: zip })).data;
      expect(own.name).not.toBe('site');
      expect(own.held_by).toMatchObject({ session: 'site', holder: expect.stringMatching(/^process \d+$/) });
      // The CLI shares as before (a person at a shell sees every session), and says whose it is.
      expect(box.run(['open', zip, '--json']).json).toMatchObject({
        name: 'site',
        already_open: true,
        held_by: { session: 'site', holder: expect.stringMatching(/^process \d+$/) },
      });
      expect(box.run(['open', zip]).stderr).toMatch(/process \d+ works in this session too .*open with --new/);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe('open of a zip replaced on disk', () => {
  it('says zip_changed over MCP instead of answering the old counts silently', async () => {
    const zip = writeZip(box.dir, 'site.zip', reportsZip());
    const mcp = await connect(box.home);
    try {
      await call(mcp.client, 'zipfs_open', { path: zip });
      const replacement = path.join(box.dir, 'other.zip');
      writeZip(box.dir, 'other.zip', zipSync({ 'README.txt': strToU8('replaced\n') }));
      fs.renameSync(replacement, zip);
      const again = (await call(mcp.client, 'zipfs_open', { path: zip })).data;
      expect(again).toMatchObject({ already_open: true, zip_changed: true });
    } finally {
      await mcp.close();
    }
  });
});
