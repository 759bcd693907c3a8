/** Colours for people, through consola's palette; off under NO_COLOR or when the stream is not a terminal. */
import { colors, stripAnsi } from 'consola/utils';

export interface Style {
  enabled: boolean;
  red(text: string): string;
  dim(text: string): string;
  bold(text: string): string;
  cyan(text: string): string;
  /** Removes colour codes from text coloured elsewhere (citty's help) when colour is off. */
  plain(text: string): string;
}

export function styleFor(stream: NodeJS.WriteStream, env: NodeJS.ProcessEnv): Style {
  const enabled = Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
  const wrap = (paint: (text: string) => string) => (text: string) => (enabled ? paint(text) : text);
  return {
    enabled,
    red: wrap(colors.red),
    dim: wrap(colors.gray),
    bold: wrap(colors.bold),
    cyan: wrap(colors.cyan),
    plain: (text) => (enabled ? text : stripAnsi(text)),
  };
}
