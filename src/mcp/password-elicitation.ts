/**
 * An MCP connection's archive password (DESIGN.md, "Encryption and passwords"): never a tool argument. When a call
 * must decrypt an entry and the server has none configured (ZIPFS_PASSWORD, ZIPFS_PASSWORD_FILE), a client that
 * declared URL elicitation (MCP 2025-11-25) is sent the address of a one-time page on loopback (password-page.ts);
 * the user gives the password there, the call runs again with it, and the connection keeps it in memory for its
 * later calls (a wrong one is forgotten). Without that capability, or when the user does not give it, the call's
 * refusal says what the user must do.
 */
import path from 'node:path';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { ZipfsError } from '../base/errors.ts';
import { isWrongPassword, withPasswordSource, type PasswordSource } from '../zip/index.ts';
import { startPasswordPage } from './password-page.ts';

/** How long the page waits for the user, from the elicitation's sending. */
const PAGE_MINUTES = 10;

/** The first run of a call stops here when it must decrypt and has no password: the password is fetched, then. */
class PasswordWanted extends ZipfsError {
  constructor(readonly archive: string | undefined) {
    super('PERMISSION_DENIED', 'zipfs needs the archive password to go on; it asks the user for it.');
  }
}

/** What a tool call gives: its request's id (the elicitation goes with it) and its cancellation. */
export interface CallTurn {
  requestId: RequestId;
  signal: AbortSignal;
}

/** The password of one connection, and how its calls run with it. */
export function connectionPasswords(
  server: Server,
  { pageReachable }: { pageReachable: boolean },
): <T>(turn: CallTurn, run: () => Promise<T>) => Promise<T> {
  /** By archive (its absolute path; '' when a call names none): archives may have passwords of their own. */
  const passwords = new Map<string, Uint8Array>();
  const canAsk = () => pageReachable && server.getClientCapabilities()?.elicitation?.url !== undefined;

  const elicit = async (archive: string | undefined, turn: CallTurn): Promise<Uint8Array | string> => {
    const name = archive === undefined ? 'the archive' : path.basename(archive);
    const page = startPasswordPage(name);
    const elicitationId = crypto.randomUUID();
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timedOut = new Promise<string>((resolve) => {
        timer = setTimeout(() => resolve(`gave none within ${PAGE_MINUTES} minutes`), PAGE_MINUTES * 60_000);
      });
      const answer = await server.elicitInput(
        {
          mode: 'url',
          elicitationId,
          url: page.url,
          message:
            `zipfs needs the password of ${name} to decrypt it. Open this page on this computer and give it ` +
            'there: it goes to the zipfs server only, never to the agent.',
        },
        { relatedRequestId: turn.requestId, signal: turn.signal, timeout: PAGE_MINUTES * 60_000 },
      );
      // Accepting only says the user agreed to open the page: the password comes through the page.
      if (answer.action !== 'accept') return answer.action === 'decline' ? 'declined' : 'cancelled';
      // The call may be cancelled meanwhile (the client gave up waiting): the page goes with it.
      const cancelled = new Promise<never>((_, reject) => {
        if (turn.signal.aborted) reject(turn.signal.reason);
        turn.signal.addEventListener('abort', () => reject(turn.signal.reason), { once: true });
      });
      cancelled.catch(() => {}); // observed by the race; never an unhandled rejection after it
      const given = await Promise.race([page.submitted, timedOut, cancelled]);
      if (typeof given !== 'string')
        await server
          .createElicitationCompletionNotifier(elicitationId, { relatedRequestId: turn.requestId })()
          .catch(() => {});
      return given;
    } finally {
      clearTimeout(timer);
      page.close();
    }
  };

  return async (turn, run) => {
    let unasked = false;
    let archive: string | undefined;
    const source = (mayAsk: boolean): PasswordSource => ({
      known: (at) => passwords.get((archive = at) ?? ''),
      ask(at) {
        archive = at;
        if (mayAsk && canAsk()) throw new PasswordWanted(at);
        unasked ||= mayAsk;
        return undefined;
      },
    });
    let wanted: PasswordWanted;
    try {
      return await withPasswordSource(source(true), run);
    } catch (error) {
      if (!(error instanceof PasswordWanted)) throw explained(error, archive, unasked && cannotAsk(pageReachable));
      wanted = error;
    }
    let outcome: Uint8Array | string;
    try {
      outcome = await elicit(wanted.archive, turn);
    } catch (error) {
      turn.signal.throwIfAborted();
      outcome = `could not be asked (${(error as Error).message})`;
    }
    if (typeof outcome !== 'string') passwords.set(wanted.archive ?? '', outcome);
    try {
      return await withPasswordSource(source(false), run);
    } catch (error) {
      const note = typeof outcome === 'string' ? `The user was asked for the password and ${outcome}.` : '';
      throw explained(error, archive, note);
    }
  };

  /** A refusal with what the user must do added; a wrong password given is forgotten, to be asked again. */
  function explained(error: unknown, archive: string | undefined, note: string | false): unknown {
    if (isWrongPassword(error) && passwords.delete(archive ?? '') && canAsk() && error instanceof ZipfsError)
      error.message += ' The next call that needs it asks the user again.';
    if (note && error instanceof ZipfsError && error.code === 'PERMISSION_DENIED') error.message += ` ${note}`;
    return error;
  }
}

/** Why the user was not asked, and what they must do. */
function cannotAsk(pageReachable: boolean): string {
  const configure =
    'the user must give the zipfs server the password in its configuration, ZIPFS_PASSWORD_FILE (a file whose ' +
    "first line it is) in the server's environment, and restart it";
  return pageReachable
    ? `This MCP client cannot ask the user for it (it declares no URL elicitation): ${configure}; or use a client ` +
        'that supports URL elicitation.'
    : `This server listens for other computers, which cannot reach a password page on its loopback: ${configure}.`;
}
