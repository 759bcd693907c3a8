/**
 * One paging scheme for every long answer (ls, tree, grep, status, diff, edit's diff, inspect):
 * the caller passes `offset` (items to skip) and optionally `limit` (items at most); the answer
 * carries `total` (or the tool's own count) and, when items were left after the page, `next_offset`,
 * the offset that continues. Over MCP a page also stops where the answer would outgrow the surface's
 * budget (CommandContext.maxAnswerBytes), so an agent never gets an answer it cannot hold; the CLI
 * has no budget and no default limit, so people get whole listings as ls -R, git status and git diff
 * give them. README.md ("Long answers come in pages") describes it for users.
 */
import * as v from 'valibot';
import { count } from '../commands/schemas.ts';

/** The paging inputs, shared so they read the same on every tool. */
export const offsetParam = v.optional(
  v.pipe(v.number(), v.integer(), v.minValue(0), v.description("Resume: the last answer's next_offset")),
);
export const limitParam = (what: string) =>
  v.optional(
    v.pipe(
      v.number(),
      v.integer(),
      v.minValue(1),
      v.description(`Most ${what} in this page (default: as many as fit one answer)`),
    ),
  );

/** The paging outputs. */
export const nextOffsetField = v.optional(count('Pass as offset for the next page; absent on the last page'));
export const totalField = (what: string) => v.optional(count(`All ${what}, in every page`));

/** JSON text inside a JSON string: what it adds to the text block that repeats the answer. */
const escaped = (json: string) => JSON.stringify(json).length - 2;

/** Characters an MCP result takes for this answer: structuredContent, plus the same JSON escaped in the text block. */
export function mcpResultChars(output: unknown): number {
  return JSON.stringify({ content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output })
    .length;
}

/** What one array element adds to an MCP result: its JSON twice (once escaped) and a comma in each. */
export function itemChars(item: unknown): number {
  const json = JSON.stringify(item);
  return json.length + escaped(json) + 2;
}

/** What a piece of a string field adds to an MCP result (a diff line inside `diff`). */
export function textChars(text: string): number {
  const once = JSON.stringify(text).slice(1, -1);
  return once.length + escaped(once);
}

export interface PageRequest {
  offset?: number;
  limit?: number;
}

/**
 * The answer for the page of `all` that starts at `offset`: at most `limit` items, and, given a
 * budget, only as many as keep the whole MCP result within it. `build` makes the answer from the
 * page's items and the offset that continues (undefined at the end). A page holds at least one
 * item even when that one alone is over the budget: an empty page could never be continued.
 */
export function takePage<T, O>(
  all: readonly T[],
  request: PageRequest,
  maxChars: number | undefined,
  build: (items: T[], nextOffset: number | undefined) => O,
  cost: (item: T) => number = itemChars,
): O {
  const offset = Math.min(request.offset ?? 0, all.length);
  let end = request.limit === undefined ? all.length : Math.min(all.length, offset + request.limit);
  if (maxChars !== undefined) {
    // The answer with no items and the largest next_offset it could carry: each item then adds its own cost.
    let used = mcpResultChars(build([], all.length));
    for (let i = offset; i < end; i++) {
      used += cost(all[i]!);
      if (used > maxChars && i > offset) {
        end = i;
        break;
      }
    }
  }
  return build(all.slice(offset, end), end < all.length ? end : undefined);
}

/** `next_offset` when there is more, nothing at the end (an absent field, not a null). */
export const continuation = (nextOffset: number | undefined): { next_offset?: number } =>
  nextOffset === undefined ? {} : { next_offset: nextOffset };

/**
 * `total` and `next_offset` for an answer that is one page of a longer result; an answer that holds
 * everything has neither, and reads as it did before paging.
 */
export function pageFields(
  total: number,
  offset: number | undefined,
  nextOffset: number | undefined,
): { total?: number; next_offset?: number } {
  return (offset ?? 0) > 0 || nextOffset !== undefined ? { total, ...continuation(nextOffset) } : {};
}

/** The CLI's stderr line for a page that is not the last: what was left out and the flag that continues. */
export function pageNote(what: string, total: number | undefined, nextOffset: number | undefined): string | undefined {
  if (nextOffset === undefined || total === undefined) return undefined;
  return `zipfs: ${total - nextOffset} more ${what} of ${total}; continue with --offset ${nextOffset}`;
}
