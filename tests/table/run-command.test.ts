/**
 * The table's runner in process (table/run-command.ts): a command that declares a session gets it
 * resolved (by name, $ZIPFS_SESSION, the only one open) in its context, a 'write' command holds
 * the session's lock for its whole run and waits for another holder before LOCKED, a 'read' one
 * never locks, a command's check() speaks before resolution, and one that declares none is run as
 * it is. The end-to-end tests (locks, workspace-races, cli-*, mcp*) hold the same on both surfaces.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as v from 'valibot';
import { ZipfsError } from '../../src/base/errors.ts';
import { defineCommand, type Command, type CommandContext } from '../../src/table/command.ts';
import { COMMANDS, findCommand } from '../../src/table/registry.ts';
import { runCommand } from '../../src/table/run-command.ts';
import { validateInput } from '../../src/table/validate.ts';
import { lockPath } from '../../src/session/lock.ts';
import { ownerOf } from '../../src/session/owner.ts';
import type { Session } from '../../src/session/session-store.ts';
import { reportsZip } from '../helpers/fixtures.ts';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'zipfs-run-command-'));
const home = path.join(dir, 'home');
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

const context = (env: NodeJS.ProcessEnv = {}, hints: CommandContext['hints'] = {}): CommandContext => ({
  home,
  env,
  hints,
  owner: ownerOf(process.pid),
});

/** A command that reports what the runner gave it, and whether its session's lock was there while it ran. */
function probe(session: 'read' | 'write' | undefined, during: (given: Session | undefined) => unknown = () => {}) {
  return defineCommand({
    name: `probe-${session ?? 'none'}`,
    title: 'Probe',
    description: 'Reports its context.',
    input: v.strictObject({ session: v.optional(v.string()), bad: v.optional(v.boolean(), false) }),
    output: v.object({ name: v.nullable(v.string()), locked: v.boolean() }),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    cli: { example: 'zipfs probe' },
    ...(session ? { session } : {}),
    check(input) {
      if (input.bad) throw new ZipfsError('INVALID_INPUT', 'Invalid argument bad: it is set.');
    },
    async run(_input, given) {
      const current = (given as CommandContext & { session?: Session }).session;
      await during(current);
      const locked = current !== undefined && fs.existsSync(lockPath(current));
      return { name: current?.record.name ?? null, locked };
    },
    render: (out) => String(out.name),
  }) as unknown as Command;
}

const run = (command: Command, raw: Record<string, unknown>, given = context()) =>
  runCommand(command, validateInput(command, raw), given);

async function openZip(name: string): Promise<void> {
  const zip = path.join(dir, `${name}.zip`);
  fs.writeFileSync(zip, reportsZip());
  const open = findCommand('open')!;
  await run(open, { path: zip, name });
}

describe('with no session open', () => {
  test('a command declaring a session is told there is none; one declaring none runs', async () => {
    const error = await run(probe('read'), {}).catch((e) => e);
    expect(error.code).toBe('NO_SESSIONS');
    expect(await run(probe(undefined), {})).toStrictEqual({ name: null, locked: false });
  });

  test("a command's check speaks before the session is resolved", async () => {
    const error = await run(probe('write'), { bad: true }).catch((e) => e);
    expect(error.code).toBe('INVALID_INPUT');
  });
});

describe('with sessions open', () => {
  beforeAll(async () => {
    await openZip('first');
  });

  test('the only open session is resolved and handed over; a read takes no lock', async () => {
    expect(await run(probe('read'), {})).toStrictEqual({ name: 'first', locked: false });
  });

  test("a write holds the session's lock while it runs, and releases it", async () => {
    let session: Session | undefined;
    const result = await run(
      probe('write', (given) => (session = given)),
      {},
    );
    expect(result).toStrictEqual({ name: 'first', locked: true });
    expect(fs.existsSync(lockPath(session!))).toBe(false);
  });

  test('a named session, then $ZIPFS_SESSION (a CLI hint), choose among several', async () => {
    await openZip('second');
    const ambiguous = await run(probe('read'), {}).catch((e) => e);
    expect(ambiguous.code).toBe('AMBIGUOUS_SESSION');
    expect((await run(probe('write'), { session: 'second' })).name).toBe('second');
    expect((await run(probe('read'), {}, context({}, { env: 'first' }))).name).toBe('first');
    // An explicit name wins over the hint, as the CLI's -s over ZIPFS_SESSION.
    expect((await run(probe('read'), { session: 'second' }, context({}, { env: 'first' }))).name).toBe('second');
    // The working folder inside a workspace (the CLI's other hint) chooses its session, as git finds its repository.
    let second: Session | undefined;
    await run(
      probe('read', (given) => (second = given)),
      { session: 'second' },
    );
    const inside = path.join(second!.contents, 'data');
    expect((await run(probe('write'), {}, context({}, { cwd: inside }))).name).toBe('second');
  });

  test('writes of one session in one process take turns', async () => {
    const order: string[] = [];
    const slow = probe('write', async () => {
      order.push('slow in');
      await Bun.sleep(50);
      order.push('slow out');
    });
    const quick = probe('write', () => order.push('quick'));
    await Promise.all([run(slow, { session: 'first' }), run(quick, { session: 'first' })]);
    expect(order).toStrictEqual(['slow in', 'slow out', 'quick']);
  });

  test("a write waits for another process's lock up to ZIPFS_LOCK_WAIT_MS, then is LOCKED", async () => {
    const holder = Bun.spawn(['sleep', '30']);
    try {
      let session: Session | undefined;
      await run(
        probe('read', (given) => (session = given)),
        { session: 'first' },
      );
      const owner = { pid: holder.pid, host: os.hostname(), command: 'sync', since: new Date().toISOString() };
      fs.writeFileSync(lockPath(session!), JSON.stringify(owner));
      const started = Date.now();
      const error = await run(probe('write'), { session: 'first' }, context({ ZIPFS_LOCK_WAIT_MS: '200' })).catch(
        (e) => e,
      );
      expect(error.code).toBe('LOCKED');
      expect(error.message).toContain(`process ${holder.pid} (zipfs sync`);
      expect(Date.now() - started).toBeGreaterThanOrEqual(190);
      // A read goes on beside the holder.
      expect((await run(probe('read'), { session: 'first' })).name).toBe('first');
      // Released within the wait, the lock is taken and the write runs.
      setTimeout(() => fs.rmSync(lockPath(session!)), 100);
      const waited = run(probe('write'), { session: 'first' }, context({ ZIPFS_LOCK_WAIT_MS: '5000' }));
      expect(await waited).toStrictEqual({ name: 'first', locked: true });
    } finally {
      holder.kill();
    }
  });
});

test('every command that declares a session takes one as input, as the runner resolves it from', () => {
  const declared = COMMANDS.filter((command) => command.session !== undefined);
  expect(declared.length).toBeGreaterThan(10);
  for (const command of declared) expect(Object.keys(command.input.entries)).toContain('session');
});
