import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { sessionParam } from './schemas.ts';

export const path = defineCommand({
  name: 'path',
  title: 'Workspace folder of a session',
  description: 'Return the folder holding a session\'s files, for any tool that works on plain files (for example xlq --basepath).',
  input: v.strictObject({ session: sessionParam }),
  output: v.object({ path: v.string() }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: { positionals: ['session'], short: { session: 's' }, example: 'cd "$(zipfs path q4-report)"' },
  run(input, context) {
    return { path: resolveSession(context.home, input.session, context.hints).contents };
  },
  render: (out) => out.path,
});
