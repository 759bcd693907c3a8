/** Colours a renderer may use; the CLI hands in real ones on a terminal and plain ones otherwise. */
export interface Paint {
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  magenta(text: string): string;
  bold(text: string): string;
  dim(text: string): string;
}

const same = (text: string) => text;

export const PLAIN: Paint = { red: same, green: same, yellow: same, cyan: same, magenta: same, bold: same, dim: same };
