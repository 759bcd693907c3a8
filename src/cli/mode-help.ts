/**
 * The CLI's modes, which are not operations of the table (mcp, exec,
 * completion, help): their one-line descriptions for `zipfs --help`, and the
 * usage `zipfs MODE --help` and `zipfs help MODE` print, in the same shape as
 * the table's commands (arguments, options with defaults, an example) and
 * saying where each is documented. Parsing stays with each mode (run.ts,
 * exec.ts, completion.ts); this file only describes it.
 */
import path from 'node:path';
import type { ArgsDef, CommandDef } from 'citty';
import { QUIET_FLAG } from './args.ts';

/** The shells `zipfs completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

export interface ModeHelp {
  def: CommandDef;
  /** Lines after the options: what the mode does beyond its flags (environment, exit status). */
  details: string[];
  example: string;
  /** Where it is documented, for the reader who wants more. */
  documented: string;
  /** What its words (not flags) complete to in a shell (completion.ts). */
  words: 'file' | 'none';
}

const mode = (name: string, description: string, args: ArgsDef): CommandDef => ({ meta: { name, description }, args });

export const MODE_HELP: Record<'mcp' | 'completion' | 'help' | 'exec', ModeHelp> = {
  mcp: {
    def: mode(
      'mcp',
      'Serve every operation as an MCP tool over stdio, or with --http [HOST:]PORT over Streamable HTTP (for Claude ' +
        'Code, Cursor and other MCP clients)',
      {
        http: {
          type: 'string',
          valueHint: '[HOST:]PORT',
          description:
            'Serve Streamable HTTP at http://HOST:PORT/mcp instead of stdio; HOST defaults to 127.0.0.1, PORT 0 ' +
            'picks a free one (printed on stderr)',
        },
        'allow-remote': {
          type: 'boolean',
          description:
            'Let --http listen on an address other than loopback; every request must then carry the bearer token',
        },
        root: {
          type: 'string',
          valueHint: 'DIR',
          description:
            "A folder where zips may be opened, inspected, created and synced (repeatable); the client's MCP roots " +
            'are added to these. Default: the working folder, unless it is / or the home folder. A URL root ' +
            '(https://host/dav/, s3://bucket/prefix/) lets clients open the remote zips under it',
        },
        'read-only': {
          type: 'boolean',
          description:
            'Serve only the tools that change nothing (open, inspect, read, grep, status, close without sync...)',
        },
      },
    ),
    details: [
      'Serves every operation above as a tool named zipfs_<command> (zipfs_open, zipfs_grep, ...), with the same ' +
        'parameters and results as --json.',
      'Without --http it speaks MCP on stdin/stdout until the client closes it; with --http it also answers GET ' +
        '/health.',
      `ZIPFS_ROOTS      more --root folders, separated by "${path.delimiter}".`,
      'ZIPFS_MCP_TOKEN  bearer token required with --allow-remote (send Authorization: Bearer <token>).',
      'ZIPFS_HOME       where sessions are kept (default ~/.local/share/zipfs).',
      "ZIPFS_PASSWORD or ZIPFS_PASSWORD_FILE (a file, its first line): encrypted archives' password; no tool " +
        'takes one. Without either, a client with URL elicitation is sent a one-time page on 127.0.0.1 to ask the ' +
        'user.',
    ],
    example: 'zipfs mcp --http 127.0.0.1:8808',
    documented: 'README.md, "MCP clients", "One zipfs for several agents: Streamable HTTP" and "Using the MCP server"',
    words: 'none',
  },
  exec: {
    def: mode('exec', 'Open a zip privately, run a command in its workspace, sync if it succeeds, close', {
      ZIP: { type: 'positional', description: 'The zip to open (it must exist)', required: true },
      COMMAND: {
        type: 'positional',
        description: 'After --: the command and its arguments, run in the workspace with ZIPFS_SESSION set',
        required: true,
      },
      merge: { type: 'boolean', description: "Sync beside another writer's changes to the zip (as sync --merge)" },
      backup: { type: 'boolean', default: true, description: 'Keep <zip>.bak' },
      'keep-on-failure': {
        type: 'boolean',
        description: 'Keep the session when COMMAND fails, for a look (zipfs status -s NAME)',
      },
      lazy: {
        type: 'boolean',
        description:
          'Extract nothing: for a COMMAND that works through zipfs (edit, write, grep...), which extracts what it ' +
          'changes; the sync then scans only that',
      },
      only: {
        type: 'string',
        valueHint: 'PATH',
        description: 'Extract only these paths or globs (repeatable), for a COMMAND that reads or edits just them',
      },
      ...QUIET_FLAG,
    }),
    details: [
      'Usage: zipfs exec ZIP [-q] [--merge] [--no-backup] [--keep-on-failure] [--lazy | --only PATH...] -- COMMAND ' +
        '[ARGS...]',
      'Without --lazy or --only, everything is extracted first: COMMAND may be any program, and sees every file.',
      "Exit status: COMMAND's own (nothing synced unless it is 0; 130/143 when interrupted), or zipfs's error code " +
        'when the open or the sync fails (the session is then kept with the changes).',
      'CLI only: no MCP tool runs commands.',
    ],
    example: "zipfs exec app.jar -- sh -c 'zipfs edit META-INF/MANIFEST.MF --old A --new B'",
    documented: 'README.md, "In CI"',
    words: 'file',
  },
  completion: {
    def: mode('completion', `Print a shell completion script: zipfs completion ${SHELLS.join('|')}`, {
      SHELL: { type: 'positional', description: `One of ${SHELLS.join(', ')}`, required: true },
    }),
    details: ['Commands, options, their values and open session names complete (sessions live, from zipfs sessions).'],
    example:
      'eval "$(zipfs completion bash)"    # zsh: source <(zipfs completion zsh); fish: zipfs completion fish | source',
    documented: 'README.md, "Using the CLI" (the command table)',
    words: 'none',
  },
  help: {
    def: mode('help', "Show this help, or a command's: zipfs help sync", {
      COMMAND: {
        type: 'positional',
        description: 'A command (or mode) to describe; none: the list of commands',
        required: false,
      },
    }),
    details: ['zipfs COMMAND --help prints the same.'],
    example: 'zipfs help sync',
    documented: 'README.md, "Using the CLI"',
    words: 'none',
  },
};

export type ModeName = keyof typeof MODE_HELP;

export const MODE_NAMES = Object.keys(MODE_HELP) as ModeName[];

export function isMode(name: string | undefined): name is ModeName {
  return name !== undefined && Object.hasOwn(MODE_HELP, name);
}

/** A mode's usage: citty's rendering of its arguments, then what it does, an example and where it is documented. */
export function modeUsage(help: ModeHelp, usage: string): string {
  const details = help.details.map((line) => `  ${line}`).join('\n');
  return (
    `${usage.trimEnd()}\n\nDETAILS\n\n${details}\n\nEXAMPLE\n\n  ${help.example}\n\nDOCUMENTED ` +
    `IN\n\n  ${help.documented}`
  );
}
