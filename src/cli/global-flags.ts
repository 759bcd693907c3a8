/**
 * The program's global flags (--json, --help/-h, --version/-v, --quiet/-q, --password-file FILE): they may stand
 * anywhere before `--`, before or after the command word (`zipfs --json ls`, `zipfs ls --json`),
 * and are taken out before a command or mode parses the rest its own way.
 *
 * Why this scans argv itself instead of citty: citty's parser reads flags anywhere, but never takes
 * them out of what the command word's own parse gets, and it reads clusters (`-qr`) where this
 * takes only the exact words. Each mode (exec stops at `--`, mcp) would then have to know them.
 */
export interface GlobalFlags {
  /** argv without the global flags, in order. */
  rest: string[];
  json: boolean;
  help: boolean;
  version: boolean;
  quiet: boolean;
  /**
   * --password-file FILE (or =FILE): the file whose first line is an encrypted archive's password. CLI only, and
   * only a file: a password given as an argument would show in `ps` and in an agent's transcript.
   */
  passwordFile?: string;
}

export function takeGlobals(argv: string[]): GlobalFlags {
  const rest: string[] = [];
  const flags: Omit<GlobalFlags, 'rest'> = { json: false, help: false, version: false, quiet: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      rest.push(...argv.slice(i));
      break;
    }
    if (arg === '--json') flags.json = true;
    else if (arg === '--help' || arg === '-h') flags.help = true;
    else if (arg === '--version' || arg === '-v') flags.version = true;
    else if (arg === '--quiet' || arg === '-q') flags.quiet = true;
    else if (arg === '--password-file' && i + 1 < argv.length) flags.passwordFile = argv[++i];
    else if (arg.startsWith('--password-file=')) flags.passwordFile = arg.slice('--password-file='.length);
    else rest.push(arg);
  }
  return { rest, ...flags };
}
