/**
 * What one operation is: schemas, metadata and a handler. Each file in
 * src/commands/ exports one of these; table/registry.ts lists them, and the CLI
 * and MCP adapters are generated from that list. Nothing here knows either surface.
 */
import type * as v from 'valibot';
import type { Paint } from '../format/paint.ts';
import type { Progress } from '../base/progress.ts';
import type { SessionHints } from '../session/resolve-session.ts';
import type { LockWait } from '../session/lock.ts';
import type { SessionOwner } from '../session/owner.ts';
import type { Session } from '../session/session-store.ts';
import { loadLimits } from '../rules/limits.ts';
import type { Connection } from '../session/connections.ts';
import type { ZipReach } from '../rules/allowed-roots.ts';

export type ObjectSchema =
  | v.ObjectSchema<v.ObjectEntries, undefined>
  | v.StrictObjectSchema<v.ObjectEntries, undefined>;

export interface CommandContext {
  /** The data directory (ZIPFS_HOME and friends, resolved). */
  home: string;
  env: NodeJS.ProcessEnv;
  /** Extra ways to pick a session when none is named; the CLI fills them, MCP does not. */
  hints: SessionHints;
  /** Set when the caller wants progress (an MCP progress token, a TTY). */
  progress?: Progress;
  /** Aborted when the caller gives up (MCP notifications/cancelled): the work stops and leaves nothing behind. */
  signal?: AbortSignal;
  /**
   * The most one answer may take on this surface, in characters of the MCP result (its JSON twice:
   * structuredContent and the text block); undefined on the CLI. Pages are cut to fit (paging.ts).
   */
  maxAnswerBytes?: number;
  /** The process of the job this caller works for (session/owner.ts): recorded by open, spared by prune. */
  owner?: SessionOwner;
  /** The MCP connection making the call (connections.ts): where its unnamed calls go; absent on the CLI. */
  connection?: Connection;
  /** The zips this caller may open, inspect and sync (an MCP server's roots: rules/allowed-roots.ts); absent: any. */
  zips?: ZipReach;
}

/**
 * What a command does with one session, for the table's runner (run-command.ts): 'read' gets it
 * resolved (named, $ZIPFS_SESSION, the working folder, the only one open), 'write' gets it resolved
 * and locked for the whole run. A command that declares none works on no session, or on one it
 * must find its own way (close --force removes a damaged one no resolution accepts).
 */
export type SessionUse = 'read' | 'write';

/** The context of a command that declared a session: the runner put it here. */
export interface SessionContext extends CommandContext {
  session: Session;
}

/**
 * How long a mutation waits for another process's lock on its session (ZIPFS_LOCK_WAIT_MS), and what stops the wait.
 */
export function lockWait(context: CommandContext): LockWait {
  return { waitMs: loadLimits(context.env).lockWaitMs, signal: context.signal };
}

export interface Annotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: false;
}

export interface CliHints {
  /** Input keys that are also taken as positionals, in order (`open <path>`). */
  positionals?: string[];
  /** One-letter aliases: `{ recursive: 'r' }` gives `-r`. */
  short?: Record<string, string>;
  /** One usage example shown in `--help`. */
  example: string;
  /** Print render()'s text exactly, like cat, instead of ending it with a newline. */
  rawOutput?: boolean;
  /** Bytes to print as they are instead of render()'s text (a binary file's content), or undefined for text. */
  bytes?(output: any, input: any): Uint8Array | undefined;
  /** An input key read from stdin when it is not given (`zipfs write notes.txt < notes.txt`). */
  stdin?: string;
  /** CLI-only boolean flags (kebab-case name -> description), for exit-code conventions that mean nothing over MCP. */
  flags?: Record<string, string>;
  /**
   * CLI-only string options (kebab-case name -> description), for what a shell cannot spell as a parameter (a list of
   * edits).
   */
  options?: Record<string, string>;
  /** Input keys the CLI gives through `options` instead of a flag of their own. */
  viaOptions?: string[];
  /** Input keys whose CLI flag has another name (read's `version` is `--from`: `--version` is the program's). */
  flagNames?: Record<string, string>;
  /** Completes the input from the CLI-only flags and options, before validation. */
  fromCli?(input: Record<string, unknown>, extras: Record<string, string | boolean | undefined>): void;
  /** Other names for the subcommand (`mv` for move). */
  aliases?: string[];
  /**
   * Input keys holding workspace paths: run from inside a workspace, they are taken from the current folder, as git
   * does.
   */
  workspacePaths?: string[];
  /** Inside a workspace, the first of workspacePaths defaults to the current folder (ls, tree, grep). */
  fromCurrentFolder?: boolean;
  /**
   * render() tells what was done ("Wrote 5 B.", a sync's counts, edit's diff) rather than giving
   * what was asked for (read's content, path's path, a listing): -q/--quiet silences it.
   */
  message?: boolean;
  /**
   * What -q/--quiet means here when it silences the result too (grep's -q, as grep and rg take it:
   * print nothing, answer by the exit status); shown in help. Unset: -q silences messages only.
   */
  quietIsSilent?: string;
  /** The exit code for a successful run, given its output and the CLI-only flags. */
  exitCode?(output: any, flags: Record<string, boolean>): number;
}

export interface Command<
  I extends ObjectSchema = ObjectSchema,
  O extends ObjectSchema = ObjectSchema,
  S extends SessionUse | undefined = SessionUse | undefined,
> {
  /** CLI subcommand; the MCP tool is `zipfs_<name>`. */
  name: string;
  title: string;
  description: string;
  input: I;
  output: O;
  annotations: Annotations;
  cli: CliHints;
  /** The session it works on, resolved (and for 'write' locked) by the runner before run(); its input has `session`. */
  session?: S;
  /**
   * Checks of the input alone, run before the session is resolved: a wrong argument is said before a missing session.
   */
  check?(input: v.InferOutput<I>): void;
  run(
    input: v.InferOutput<I>,
    context: S extends SessionUse ? SessionContext : CommandContext,
  ): v.InferOutput<O> | Promise<v.InferOutput<O>>;
  /** Readable output for people; `--json` and MCP use the object itself. `flags.quiet` is -q/--quiet. */
  render(output: v.InferOutput<O>, paint: Paint, flags: Record<string, boolean>, input: v.InferOutput<I>): string;
  /**
   * An optional line for stderr (a hint, a warning) that must not mix with the result on stdout.
   * With `quiet` (-q), only what a script must still hear: warnings, and that a page left something out.
   */
  note?(output: v.InferOutput<O>, quiet: boolean, input?: v.InferOutput<I>): string | undefined;
}

/** Keeps each command's input and output types tied to its schemas. */
export function defineCommand<
  I extends ObjectSchema,
  O extends ObjectSchema,
  S extends SessionUse | undefined = undefined,
>(command: Command<I, O, S>): Command<I, O, S> {
  return command;
}
