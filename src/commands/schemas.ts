/** Schema pieces several commands share, so the same parameter reads the same everywhere. */
import * as v from 'valibot';

export const sessionParam = v.optional(
  v.pipe(v.string(), v.minLength(1), v.description('Session name or ID (a unique ID prefix of 8+ characters works too). Optional when exactly one session is open.')),
);

export const workspacePathParam = (description: string) =>
  v.optional(v.pipe(v.string(), v.description(description)), '/');

export const backupParam = v.optional(
  v.pipe(v.boolean(), v.description('Keep the previous archive as <zip>.bak beside it (default true; CLI: --no-backup)')),
  true,
);
