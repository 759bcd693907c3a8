import * as v from 'valibot';
import { defineCommand } from '../table/command.ts';
import { ZipfsError } from '../base/errors.ts';
import { humanBytes } from '../format/units.ts';
import { writeWorkspaceFile } from '../files/edit.ts';
import { sessionFolderRules } from '../rules/folder-rules.ts';
import { workspaceOf } from '../workspace/session-workspace.ts';
import { loadLimits } from '../rules/limits.ts';
import { count, flag, sessionParam } from './schemas.ts';

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

function decode(content: string, encoding: 'utf-8' | 'base64'): Uint8Array {
  if (encoding === 'utf-8') return new TextEncoder().encode(content);
  const compact = content.replace(/\s+/g, '');
  if (compact.length % 4 === 1 || !BASE64.test(compact))
    throw new ZipfsError('INVALID_INPUT', 'Invalid argument content: it is not valid base64 (encoding is "base64").');
  return Buffer.from(compact, 'base64');
}

export const write = defineCommand({
  name: 'write',
  title: 'Write',
  description: 'Create or replace a file, atomically.',
  input: v.strictObject({
    session: sessionParam,
    path: v.pipe(v.string(), v.description('From the workspace root')),
    content: v.pipe(v.string(), v.description('New content')),
    encoding: v.optional(v.pipe(v.picklist(['utf-8', 'base64']), v.description('Of content')), 'utf-8'),
    create_dirs: v.optional(v.pipe(v.boolean(), v.description('Make parents')), true),
    append: v.optional(v.pipe(v.boolean(), v.description('Add to the end')), false),
  }),
  output: v.object({ written: flag('True'), size_bytes: count('Size') }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  session: 'write',
  cli: {
    message: true,
    workspacePaths: ['path'],
    positionals: ['path', 'content'],
    short: { session: 's' },
    stdin: 'content',
    example: 'zipfs write data/config.json \'{"debug": true}\'',
  },
  async run(input, context) {
    const { session } = context;
    const bytes = decode(input.content, input.encoding);
    const workspace = workspaceOf(session);
    // Appending adds to the file's content: prepared as a change. A whole write needs none of it.
    if (input.append)
      await workspace.prepareChange([input.path], { home: context.home, limits: loadLimits(context.env) });
    // A folder only in the archive exists in the session: made on disk for a write that makes no folders.
    if (!input.create_dirs) workspace.prepareFolderOf(input.path);
    const { size } = writeWorkspaceFile(session.contents, input.path, bytes, input.create_dirs, {
      append: input.append,
      rules: sessionFolderRules(session.record),
    });
    return { written: true, size_bytes: size };
  },
  render: (out) => `Wrote ${humanBytes(out.size_bytes)}.`,
});
