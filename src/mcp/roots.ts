/**
 * Where an MCP client may have zipfs reach zips (issue 33): the folders of `zipfs mcp --root DIR`
 * and ZIPFS_ROOTS, and the client's MCP roots (its workspace folders), asked with `roots/list`
 * when the client declares the roots capability and asked again after it sends
 * `notifications/roots/list_changed`. The comparison itself is rules/allowed-roots.ts.
 *
 * The client's roots are added to the configured ones, not put in their place (the reference
 * filesystem server replaces them): a folder the user named in the server's configuration is a
 * grant as deliberate as a workspace folder, and a client that sends its project folder must not
 * take away the archive folder configured beside it. A root the client removes is no longer
 * allowed at the next call, and the sessions of zips in it become unreachable (PERMISSION_DENIED).
 *
 * With neither, the server's working folder is the one root: where a client started in a project
 * folder has its files, and no wider. Not when that folder is the file system's root or the home
 * folder (where desktop clients start servers): then no zip is allowed until a root is given,
 * since the whole disk or home (backups, mail exports) is what the boundary is for.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ListRootsResultSchema, RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { ZipfsError, quote } from '../base/errors.ts';
import { logger } from '../base/log.ts';
import { AllowedRoots, isUrlPlace, realPlace } from '../rules/allowed-roots.ts';

export const ROOTS_ENV = 'ZIPFS_ROOTS';

/** How long a client gets to answer roots/list before the call goes on with the configured roots. */
const ROOTS_TIMEOUT_MS = 30_000;

export interface RootsConfig {
  /** --root and ZIPFS_ROOTS, as real paths. */
  configured: string[];
  /** The working folder, taken when nothing gives a root; absent when it is the disk's root or home. */
  fallback?: string;
  /** The working folder as it is, to say why it was not taken. */
  cwd: string;
}

/** Each folder must exist: a misspelt root would leave the server allowing nothing, silently. */
function realFolder(folder: string, origin: string): string {
  const real = realPlace(folder);
  if (!fs.statSync(real, { throwIfNoEntry: false })?.isDirectory())
    throw new ZipfsError(
      'INVALID_INPUT',
      `${origin} ${quote(folder)} is not a folder${real === path.resolve(folder) ? '' : ` (it is ${quote(real)})`}: ` +
        'give an existing folder, in which zips may be opened and synced.',
    );
  return real;
}

/** The configured roots: `--root` flags, then ZIPFS_ROOTS (a list separated by the platform's `:` or `;`). */
export function rootsConfig(flags: string[], env: NodeJS.ProcessEnv, cwd = process.cwd()): RootsConfig {
  // On POSIX the list's `:` is neither a URL root's `https://` nor its `:PORT`.
  const list = env[ROOTS_ENV] ?? '';
  const fromEnv = (
    path.delimiter === ':' ? (list.match(/(?:https?|s3):\/\/(?:[^:]|:(?=\d))*|[^:]+/gi) ?? []) : list.split(';')
  ).filter((root) => root.trim() !== '');
  // A URL root (https://host/dav/, s3://bucket/prefix/) allows remote archives under it; a folder is a real path.
  const place = (root: string, origin: string) => (isUrlPlace(root) ? root : realFolder(root, origin));
  const configured = [...flags.map((root) => place(root, '--root')), ...fromEnv.map((root) => place(root, ROOTS_ENV))];
  const real = realPlace(cwd);
  const tooWide = path.dirname(real) === real || real === realPlace(os.homedir());
  return { configured, cwd: real, ...(tooWide ? {} : { fallback: real }) };
}

/** The roots of one MCP client (a stdio server's, or one Streamable HTTP session's). */
export class ClientRoots {
  private clientRoots: string[] = [];
  /** Bumped by every list_changed; the roots asked for at `asked` are current while it equals it. */
  private changes = 1;
  private asked = 0;

  constructor(
    private readonly server: Server,
    private readonly config: RootsConfig,
  ) {
    server.setNotificationHandler(RootsListChangedNotificationSchema, async () => {
      this.changes += 1;
    });
  }

  /**
   * The roots for a call, asking the client first when they changed. Asked inside the call (its
   * `sendRequest`), so over Streamable HTTP the question goes out on the call's own stream.
   */
  async current(sendRequest: AskRoots): Promise<AllowedRoots> {
    if (this.server.getClientCapabilities()?.roots && this.asked !== this.changes) await this.ask(sendRequest);
    const { configured, fallback, cwd } = this.config;
    const given = [...configured, ...this.clientRoots];
    const from =
      configured.length > 0 && this.clientRoots.length > 0
        ? "--root or ZIPFS_ROOTS, and the client's roots"
        : configured.length > 0
          ? '--root or ZIPFS_ROOTS'
          : "the client's roots";
    if (given.length > 0) return new AllowedRoots(given, { from });
    if (fallback)
      return new AllowedRoots([fallback], {
        from: "the server's working folder, as neither --root, ZIPFS_ROOTS nor the client gave a root",
      });
    return new AllowedRoots([], {
      from: '',
      none:
        `neither --root, ZIPFS_ROOTS nor the client gave a root, and its working folder ${quote(cwd)} is the ` +
        "disk's root or the home folder, too wide to take by default",
    });
  }

  private async ask(sendRequest: AskRoots): Promise<void> {
    const asking = this.changes;
    try {
      const answer = await sendRequest({ method: 'roots/list' }, ListRootsResultSchema, { timeout: ROOTS_TIMEOUT_MS });
      this.clientRoots = answer.roots.flatMap((root) => {
        if (!root.uri.startsWith('file:')) return [];
        try {
          return [realPlace(fileURLToPath(root.uri))];
        } catch {
          return [];
        }
      });
    } catch (error) {
      // A client that declares roots and cannot list them keeps the last list (none at first).
      (await logger()).error(`roots/list failed, keeping the roots known before: ${String(error)}`);
    }
    this.asked = asking;
  }
}

/** The `sendRequest` of a request handler's `extra`, as far as roots/list needs it. */
export type AskRoots = (
  request: { method: 'roots/list' },
  schema: typeof ListRootsResultSchema,
  options: { timeout: number },
) => Promise<{ roots: { uri: string }[] }>;
