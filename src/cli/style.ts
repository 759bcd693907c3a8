/** Colours for people, through consola's palette; off under NO_COLOR or when the stream is not a terminal. */
import { colors, stripAnsi } from 'consola/utils';
import { PLAIN, type Paint } from '../format/paint.ts';

export interface Style extends Paint {
  enabled: boolean;
  /** Removes colour codes from text coloured elsewhere (citty's help) when colour is off. */
  plain(text: string): string;
}

export function styleFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): Style {
  const enabled = Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
  const paint: Paint = enabled
    ? { red: colors.red, green: colors.green, yellow: colors.yellow, cyan: colors.cyan, magenta: colors.magenta, bold: colors.bold, dim: colors.gray }
    : PLAIN;
  return { ...paint, enabled, plain: (text) => (enabled ? text : stripAnsi(text)) };
}
