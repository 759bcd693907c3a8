/**
 * Colours for people, through consola's palette; off under NO_COLOR or when the
 * stream is not a terminal. The palette is imported only when colours are on,
 * so scripts and pipes do not pay for loading it.
 */
import { PLAIN, type Paint } from '../format/paint.ts';
import type { Output } from './terminal.ts';

export interface Style extends Paint {
  enabled: boolean;
  /** Removes colour codes from text coloured elsewhere (citty's help) when colour is off. */
  plain(text: string): string;
}

const ANSI = /\u001b\[[0-9;]*m/g;

/** Text without colour codes. */
export const stripAnsi = (text: string): string => text.replace(ANSI, '');

export async function styleFor(stream: Output, env: NodeJS.ProcessEnv): Promise<Style> {
  const enabled = Boolean(stream.isTTY) && !env.NO_COLOR && env.TERM !== 'dumb';
  let paint: Paint = PLAIN;
  if (enabled) {
    const { colors } = await import('consola/utils');
    paint = {
      red: colors.red,
      green: colors.green,
      yellow: colors.yellow,
      cyan: colors.cyan,
      magenta: colors.magenta,
      bold: colors.bold,
      dim: colors.gray,
    };
  }
  return { ...paint, enabled, plain: (text) => (enabled ? text : stripAnsi(text)) };
}
