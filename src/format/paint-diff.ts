/**
 * A unified diff coloured for a terminal as git colours it (paint is plain off a terminal): diff and edit print the
 * same way.
 */
import type { Paint } from './paint.ts';

export function paintDiff(diff: string, paint: Paint): string {
  return diff
    .split('\n')
    .map((line) =>
      line.startsWith('diff --git')
        ? paint.bold(line)
        : line.startsWith('+')
          ? paint.green(line)
          : line.startsWith('-')
            ? paint.red(line)
            : line.startsWith('@@')
              ? paint.cyan(line)
              : line,
    )
    .join('\n')
    .trimEnd();
}
