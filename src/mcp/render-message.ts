/** Messages in MCP's words: `force: true`, `stale: "7d"`, `zipfs_close with session: "q4", force: true`. */
import { renderMarks, renderMarksDeep, type MarkRenderer, type ParamValue } from '../base/message-marks.ts';
import { MCP_TOOL_PREFIX } from '../table/registry.ts';

const argument = (name: string, value: ParamValue) => `${name}: ${JSON.stringify(value)}`;

const MCP_WORDS: MarkRenderer = {
  param: argument,
  invocation(operation, args) {
    const list = Object.entries(args).map(([key, value]) => argument(key, value));
    return `${MCP_TOOL_PREFIX}${operation}${list.length > 0 ? ` with ${list.join(', ')}` : ''}`;
  },
};

export const mcpMessage = (message: string) => renderMarks(message, MCP_WORDS);
export const mcpResult = <T>(result: T) => renderMarksDeep(result, MCP_WORDS);
