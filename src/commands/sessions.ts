import * as v from 'valibot';
import { count, name, text } from './schemas.ts';
import { defineCommand } from '../table/command.ts';
import { humanBytes, isoSeconds, relativeTime, table } from '../format/units.ts';
import { listSessions } from '../session/session-store.ts';
import { zipPlace } from '../session/manifest.ts';

export const sessions = defineCommand({
  name: 'sessions',
  title: 'Sessions',
  description: 'List open sessions.',
  input: v.strictObject({}),
  output: v.object({
    sessions: v.pipe(
      v.array(
        v.object({
          id: text('Id'),
          name: name('Name'),
          source_path: name('Zip'),
          state: v.pipe(v.literal('open'), v.description('Open')),
          created_at: text('ISO time'),
          last_accessed_at: text('ISO time'),
          file_count: count('Files'),
          extracted_size_bytes: count('Bytes'),
        }),
      ),
      v.description('By name'),
    ),
  }),
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  cli: { example: 'zipfs sessions --json' },
  run(_input, context) {
    return {
      // Over MCP, the sessions of zips in the client's roots only: the others are not its to use.
      sessions: listSessions(context.home)
        .filter((s) => context.zips?.allows(zipPlace(s.record)) ?? true)
        .map((s) => ({
          id: s.record.id,
          name: s.record.name,
          source_path: s.record.source_path,
          state: 'open' as const,
          created_at: s.record.created_at,
          last_accessed_at: isoSeconds(s.lastAccessedAt),
          file_count: s.record.file_count,
          extracted_size_bytes: s.record.extracted_size_bytes,
        })),
    };
  },
  render(out, paint) {
    if (out.sessions.length === 0) return 'No open sessions. Open one with: zipfs open <file.zip>';
    const rows = out.sessions.map((s) => [
      s.name,
      s.id.slice(0, 8),
      String(s.file_count),
      humanBytes(s.extracted_size_bytes),
      relativeTime(new Date(s.last_accessed_at)),
      s.source_path,
    ]);
    const [header, ...body] = table([['NAME', 'ID', 'FILES', 'SIZE', 'LAST USED', 'SOURCE'], ...rows], [2, 3]).split(
      '\n',
    );
    return [paint.bold(header!), ...body].join('\n');
  },
});
