/**
 * `zipfs completion bash|zsh|fish`: completion scripts generated from the
 * dispatch table (commands, flags, their values), so a new row completes too.
 * Session names are completed live, from `zipfs sessions --json`.
 */
import type { ArgsDef } from 'citty';
import type { Command } from '../table/command.ts';
import { ZipfsError } from '../base/errors.ts';
import { commandArgs } from './args.ts';
import { MODE_HELP, MODE_NAMES, SHELLS } from './mode-help.ts';

export { SHELLS };

interface Flag {
  long: string;
  short?: string;
  description: string;
  values?: string[];
  takesValue: boolean;
}

/** What a command's words (not flags) complete to: session names, paths in the workspace, local files, or nothing. */
type Words = 'session' | 'workspace' | 'file' | 'none';

interface Entry {
  name: string;
  description: string;
  flags: Flag[];
  words: Words;
}

function flagsOf(args: ArgsDef): Flag[] {
  return Object.entries(args)
    .filter(([, def]) => def.type !== 'positional')
    .flatMap(([long, def]) => {
      const alias = 'alias' in def ? [def.alias ?? []].flat()[0] : undefined;
      const values = def.type === 'enum' ? def.options : undefined;
      const description = (def.description ?? '').replace(/\s+/g, ' ');
      const flag = {
        long,
        short: alias,
        description,
        values,
        takesValue: def.type === 'string' || def.type === 'enum',
      };
      // A switch that is on by default is turned off with --no-NAME (--no-create-dirs, --no-backup).
      const off =
        def.type === 'boolean' && def.default === true
          ? [{ long: `no-${long}`, description: `Not: ${description}`, takesValue: false }]
          : [];
      return [flag, ...off];
    });
}

function wordsOf(command: Command): Words {
  const first = command.cli.positionals?.[0];
  if (first === 'session') return 'session';
  if (command.cli.workspacePaths?.length) return 'workspace';
  return first === undefined ? 'none' : 'file';
}

function entries(commands: readonly Command[]): Entry[] {
  const rows = commands.flatMap((c) =>
    [c.name, ...(c.cli.aliases ?? [])].map((name) => ({
      name,
      description: c.description.split(/[.;:](\s|$)/)[0]!,
      flags: flagsOf(commandArgs(c)),
      words: wordsOf(c),
    })),
  );
  // The CLI's modes, from the one list help uses (completion's words, the shells, and help's are written out below).
  const modes = MODE_NAMES.map((name) => ({
    name,
    description: (MODE_HELP[name].def.meta as { description: string }).description.split(/[.;:](\s|$)/)[0]!,
    flags: flagsOf(MODE_HELP[name].def.args as ArgsDef),
    words: MODE_HELP[name].words,
  }));
  return [...rows, ...modes];
}

const SESSIONS_CMD = `zipfs sessions --json 2>/dev/null | sed -n 's/.*"name": *"\\([^"]*\\)".*/\\1/p'`;

/**
 * Paths inside the session's workspace: from the current folder when it is inside one, else from the workspace root.
 */
/** zsh's completer of workspace paths: relative to the current folder inside the workspace, else to its root. */
const ZSH_WORKSPACE_PATHS =
  '_zipfs_workspace_paths() { local root; root="$(zipfs path 2>/dev/null)" || return; ' +
  'if [[ "$PWD/" == "$root"/* ]]; then _files; else _files -W "$root"; fi; }';
const WORKSPACE_PATHS =
  `local root; root="$(zipfs path 2>/dev/null)" || return; case "$PWD/" in "$root"/*) compgen ` +
  `-f -- "$1" ;; *) (cd "$root" && compgen -f -- "$1") ;; esac`;

function bash(list: Entry[]): string {
  const words: Record<Words, string> = {
    session: 'COMPREPLY=($(compgen -W "$(_zipfs_sessions)" -- "$cur"))',
    workspace: 'COMPREPLY=($(_zipfs_workspace_paths "$cur"))',
    file: 'COMPREPLY=($(compgen -f -- "$cur"))',
    none: 'COMPREPLY=()',
  };
  const cases = list
    .filter((e) => e.name !== 'completion' && e.name !== 'help')
    .map((e) => {
      const opts = e.flags.flatMap((f) => [`--${f.long}`, ...(f.short ? [`-${f.short}`] : [])]).join(' ');
      return `    ${e.name}) opts="${opts} --help"; words='${e.words}' ;;`;
    })
    .join('\n');
  const values = list
    .flatMap((e) =>
      e.flags
        .filter((f) => f.values)
        .map((f) => `    --${f.long}) COMPREPLY=($(compgen -W "${f.values!.join(' ')}" -- "$cur")); return ;;`),
    )
    .filter((line, i, all) => all.indexOf(line) === i)
    .join('\n');
  return `# zipfs completion for bash. Load it with: eval "$(zipfs completion bash)"
_zipfs_sessions() { ${SESSIONS_CMD}; }
_zipfs_workspace_paths() { ${WORKSPACE_PATHS}; }
_zipfs() {
  local cur prev cmd opts words
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  cmd="\${COMP_WORDS[1]}"
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=($(compgen -W "${list.map((e) => e.name).join(' ')} --help --version" -- "$cur"))
    return
  fi
  case "$prev" in
    --session|-s) COMPREPLY=($(compgen -W "$(_zipfs_sessions)" -- "$cur")); return ;;
${values}
  esac
  case "$cmd" in
${cases}
    completion) COMPREPLY=($(compgen -W "${SHELLS.join(' ')}" -- "$cur")); return ;;
    help) COMPREPLY=($(compgen -W "${list
      .filter((e) => e.name !== 'help')
      .map((e) => e.name)
      .join(' ')}" -- "$cur")); return ;;
    *) opts="--help"; words=none ;;
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return; fi
  case "$words" in
    session) ${words.session} ;;
    workspace) ${words.workspace} ;;
    file) ${words.file} ;;
    *) ${words.none} ;;
  esac
}
complete -o filenames -F _zipfs zipfs
`;
}

const quote = (text: string) =>
  text.replaceAll("'", "'\\''").replaceAll('[', '\\[').replaceAll(']', '\\]').replaceAll(':', '\\:');

function zsh(list: Entry[]): string {
  const commands = list.map((e) => `    '${e.name}:${quote(e.description)}'`).join('\n');
  const wordSpec: Record<Words, string[]> = {
    session: ["'*:session:_zipfs_sessions'"],
    workspace: ["'*:path:_zipfs_workspace_paths'"],
    file: ["'*:file:_files'"],
    none: [],
  };
  const cases = list
    .filter((e) => e.name !== 'completion' && e.name !== 'help')
    .map((e) => {
      const specs = e.flags.map((f) => {
        const action =
          f.long === 'session'
            ? ':session:_zipfs_sessions'
            : f.values
              ? `:value:(${f.values.join(' ')})`
              : f.takesValue
                ? ':value:'
                : '';
        const names = f.short ? `'(-${f.short} --${f.long})'{-${f.short},--${f.long}}'` : `'--${f.long}`;
        return `${names}[${quote(f.description)}]${action}'`;
      });
      return `    ${e.name}) _arguments ${[...specs, ...wordSpec[e.words]].join(' ')} ;;`;
    })
    .join('\n');
  return `#compdef zipfs
# zipfs completion for zsh. Load it with: source <(zipfs completion zsh)
_zipfs_sessions() { compadd -- \${(f)"$(${SESSIONS_CMD})"}; }
${ZSH_WORKSPACE_PATHS}
_zipfs() {
  local -a commands
  commands=(
${commands}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  case "\${words[2]}" in
${cases}
    completion) _values 'shell' ${SHELLS.join(' ')} ;;
    help) _describe 'command' commands ;;
  esac
}
compdef _zipfs zipfs
`;
}

function fish(list: Entry[]): string {
  const lines = ['# zipfs completion for fish. Load it with: zipfs completion fish | source', 'complete -c zipfs -f'];
  lines.push(`function __zipfs_sessions; ${SESSIONS_CMD}; end`);
  lines.push(
    'function __zipfs_workspace_paths; set -l root (zipfs path 2>/dev/null); or return; if string match -q -- ' +
      '"$root/*" "$PWD/"; __fish_complete_path (commandline -ct); else; pushd $root; __fish_complete_path ' +
      '(commandline -ct); popd; end; end',
  );
  const wordArgs: Record<Words, string> = {
    session: "-a '(__zipfs_sessions)'",
    workspace: "-a '(__zipfs_workspace_paths)'",
    file: '-F',
    none: '',
  };
  for (const e of list)
    if (wordArgs[e.words])
      lines.push(`complete -c zipfs -n '__fish_seen_subcommand_from ${e.name}' ${wordArgs[e.words]}`);
  for (const e of list)
    lines.push(`complete -c zipfs -n __fish_use_subcommand -a ${e.name} -d '${e.description.replaceAll("'", "\\'")}'`);
  for (const e of list) {
    for (const f of e.flags) {
      const parts = [`complete -c zipfs -n '__fish_seen_subcommand_from ${e.name}' -l ${f.long}`];
      if (f.short) parts.push(`-s ${f.short}`);
      if (f.long === 'session') parts.push("-x -a '(__zipfs_sessions)'");
      else if (f.values) parts.push(`-x -a '${f.values.join(' ')}'`);
      else if (f.takesValue) parts.push('-r');
      parts.push(`-d '${f.description.replaceAll("'", "\\'")}'`);
      lines.push(parts.join(' '));
    }
  }
  lines.push(`complete -c zipfs -n '__fish_seen_subcommand_from completion' -a '${SHELLS.join(' ')}'`);
  lines.push(
    `complete -c zipfs -n '__fish_seen_subcommand_from help' -a '${list
      .filter((e) => e.name !== 'help')
      .map((e) => e.name)
      .join(' ')}'`,
  );
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: string | undefined, commands: readonly Command[]): string {
  const list = entries(commands);
  if (shell === 'bash') return bash(list);
  if (shell === 'zsh') return zsh(list);
  if (shell === 'fish') return fish(list);
  throw new ZipfsError(
    'INVALID_INPUT',
    `Give a shell: zipfs completion ${SHELLS.join('|')} (got ${shell === undefined ? 'none' : `"${shell}"`}).`,
  );
}
