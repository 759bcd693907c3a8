import * as v from 'valibot';
import { defineCommand } from '../command.ts';
import { resolveSession } from '../session/resolve-session.ts';
import { sessionParam, text } from './schemas.ts';

export const path = defineCommand({
  name: 'path',
  title: 'Workspace folder',
  description: 'A session\'s files folder, for other tools.',
  input: v.strictObject({ session: sessionParam }),
  output: v.object({ path: text('Absolute') }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: { positionals: ['session'], short: { session: 's' }, example: 'cd "$(zipfs path q4-report)"' },
  run(input, context) {
    return { path: resolveSession(context.home, input.session, context.hints).contents };
  },
  render: (out) => out.path,
});
