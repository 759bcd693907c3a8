/**
 * `zipfs exec ZIP [--merge] [--no-backup] [--keep-on-failure] [--lazy | --only PATH...] -- COMMAND [ARGS...]`:
 * the one call a CI job needs. A private session of the zip is opened (everything extracted, as COMMAND may
 * be any program; with --lazy nothing, or with --only what they name, for a COMMAND that works through
 * zipfs or on those paths: the sync then scans and compares only what was extracted), COMMAND
 * runs in its workspace folder with ZIPFS_SESSION naming it (so `zipfs edit`,
 * `sed -i`, a build tool all work there), and then: COMMAND exited 0, the
 * changes are synced; it failed or was interrupted, they are discarded. The
 * session is closed (kept on failure only when asked, for a post-mortem, and
 * always when the sync itself fails, so no work is lost), and zipfs exits with
 * COMMAND's status, or its own error code when the sync fails. CLI only: no
 * MCP tool runs commands.
 */
import { parseArgs, type ArgsDef } from 'citty';
import { ZipfsError } from '../base/errors.ts';
import { MODE_HELP } from './mode-help.ts';
import { commandNamed } from '../table/command-loader.ts';
import type { CommandContext } from '../table/command.ts';
import { runCommand } from '../table/run-command.ts';
import { backupsSaid } from '../sync/backup-history.ts';

export interface ExecOptions {
  zip: string;
  command: string[];
  merge: boolean;
  backup: boolean;
  keepOnFailure: boolean;
  /** Open lazily: nothing extracted, but what COMMAND changes through zipfs (or `only` names). */
  lazy: boolean;
  /** Paths or globs extracted at open; the rest stays in the zip (open's `only`). */
  only: string[];
}

const USAGE =
  'zipfs exec ZIP [-q] [--merge] [--no-backup] [--keep-on-failure] [--lazy | --only PATH...] -- COMMAND [ARGS...]';

/** exec's flags as its help declares them (mode-help.ts), defaults included: citty reads them with these. */
const EXEC_FLAGS: ArgsDef = Object.fromEntries(
  Object.entries(MODE_HELP.exec.def.args as ArgsDef).filter(([, def]) => def.type !== 'positional'),
);

/**
 * The exec line's own options, before `--`, and the command after it. citty reads the flags; the
 * words are checked first because citty takes any flag silently, and a typo must say the usage.
 */
export function parseExec(argv: string[]): ExecOptions {
  const cut = argv.indexOf('--');
  const own = cut < 0 ? argv : argv.slice(0, cut);
  const command = cut < 0 ? [] : argv.slice(cut + 1);
  // --backup: the default, as help shows it
  const known = new Set(['--merge', '--backup', '--no-backup', '--keep-on-failure', '--lazy']);
  // --only takes a value, and is given once per path (citty keeps only the last of a repeated flag).
  const only: string[] = [];
  for (let i = 0; i < own.length; i++) {
    const arg = own[i]!;
    if (arg.startsWith('--only=')) only.push(arg.slice('--only='.length));
    else if (arg === '--only' && i + 1 < own.length) only.push(own[++i]!);
    else if (arg.startsWith('-') && !known.has(arg))
      throw new ZipfsError('INVALID_INPUT', `Unknown option ${arg} for exec. Usage: ${USAGE}`);
  }
  if (only.some((pattern) => pattern === ''))
    throw new ZipfsError('INVALID_INPUT', `Invalid input for exec: --only needs a path or glob. Usage: ${USAGE}`);
  const parsed = parseArgs(own, EXEC_FLAGS);
  const paths = parsed._;
  if (paths.length !== 1 || command.length === 0)
    throw new ZipfsError(
      'INVALID_INPUT',
      `Invalid input for exec: give one zip and, after --, the command to run in its workspace. Usage: ${USAGE}`,
    );
  return {
    zip: paths[0]!,
    command,
    merge: parsed.merge === true,
    backup: parsed.backup !== false,
    keepOnFailure: parsed['keep-on-failure'] === true,
    lazy: parsed.lazy === true,
    only,
  };
}

const SIGNAL_EXIT = { SIGINT: 130, SIGTERM: 143 } as const;

/**
 * Runs the whole exec; returns the exit code. Notes go to `say` (stderr); with `quiet` (-q), only those about a
 * failure.
 */
export async function runExec(
  options: ExecOptions,
  context: CommandContext,
  say: (line: string) => void,
  quiet = false,
): Promise<number> {
  const run = (name: string, input: Record<string, unknown>) => runCommand(commandNamed(name)!, input, context);
  // A name of its own: parallel jobs on one data folder never meet in one session.
  const name = `exec-${process.pid}-${globalThis.crypto.randomUUID().slice(0, 8)}`;
  const close = (force: boolean) => run('close', { session: name, force, sync: false, backup: options.backup });

  // A job's timeout or Ctrl-C stops the command too, and then nothing of its half-done work is synced.
  // The handlers are in place before the open: a signal while it extracts ends zipfs through
  // exit-cleanup.ts, which removes the staging folder; one just after it, or the moment the command
  // has started, would otherwise kill zipfs by default, leaving the session, and the command running.
  let interrupted: keyof typeof SIGNAL_EXIT | undefined;
  let child: ReturnType<typeof Bun.spawn> | undefined;
  const forward = (signal: keyof typeof SIGNAL_EXIT) => () => {
    interrupted = signal;
    child?.kill(signal);
  };
  const handlers = (Object.keys(SIGNAL_EXIT) as (keyof typeof SIGNAL_EXIT)[]).map(
    (signal) => [signal, forward(signal)] as const,
  );
  for (const [signal, handler] of handlers) process.on(signal, handler);
  let status = 0;
  let opened: Record<string, unknown>;
  try {
    // Eager unless asked: COMMAND may be any program, and a lazy folder holds only what zipfs extracted.
    const extract = options.only.length > 0 ? { only: options.only } : options.lazy ? { lazy: true } : {};
    opened = await run('open', { path: options.zip, name, create: false, ...extract });
    // the runtime installs signal handlers from its event loop: let it, before the command can be signalled
    await Bun.sleep(0);
    if (!interrupted) {
      child = Bun.spawn(options.command, {
        cwd: opened.workspace_path as string,
        env: { ...context.env, ZIPFS_SESSION: name, ZIPFS_HOME: context.home },
        stdin: 'inherit',
        stdout: 'inherit',
        stderr: 'inherit',
      });
      status = await child.exited;
    }
  } finally {
    for (const [signal, handler] of handlers) process.off(signal, handler);
  }

  if (interrupted || status !== 0) {
    const why = interrupted ? `was interrupted (${interrupted})` : `exited with ${status}`;
    if (options.keepOnFailure) {
      say(
        `zipfs exec: ${options.command[0]} ${why}; nothing synced. The session "${name}" is kept for a look: zipfs ` +
          `status -s ${name}, then zipfs close ${name} --force.`,
      );
    } else {
      await close(true);
      say(`zipfs exec: ${options.command[0]} ${why}; nothing synced, the session was discarded.`);
    }
    return interrupted ? SIGNAL_EXIT[interrupted] : status;
  }
  try {
    const synced = await run('sync', {
      session: name,
      force: false,
      merge: options.merge,
      dry_run: false,
      backup: options.backup,
    });
    const kept = backupsSaid(synced);
    if (!quiet)
      say(
        `zipfs exec: synced ${synced.files_modified} modified, ${synced.files_added} added, ${synced.files_deleted} ` +
          `deleted${synced.backup_path ? `; previous archive kept as ${synced.backup_path}${kept}` : ''}.`,
      );
  } catch (error) {
    // The command did its work and only the sync failed (the zip changed: try --merge; a full disk): the
    // work is not thrown away, whatever --keep-on-failure says.
    say(
      `zipfs exec: the sync failed; the session "${name}" is kept with the changes (zipfs status ` +
        `-s ${name}; zipfs sync ${name} --merge, or zipfs close ${name} --force).`,
    );
    throw error;
  }
  await close(true);
  return 0;
}
