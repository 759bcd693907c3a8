/**
 * `zipfs completion bash|zsh|fish`: completion scripts generated from the
 * dispatch table (commands, flags, their values), so a new row completes too.
 * Session names are completed live, from `zipfs sessions --json`.
 */
import type { ArgsDef } from 'citty';
import type { Command } from '../command.ts';
import { ZipfsError } from '../errors.ts';
import { commandArgs } from './args.ts';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;

interface Flag {
  long: string;
  short?: string;
  description: string;
  values?: string[];
  takesValue: boolean;
}

interface Entry {
  name: string;
  description: string;
  flags: Flag[];
}

/** Extra CLI modes that are not operations of the table. */
const MODES: Entry[] = [
  { name: 'mcp', description: 'Serve the tools over MCP on stdio', flags: [] },
  { name: 'completion', description: 'Print a shell completion script', flags: [] },
];

function flagsOf(args: ArgsDef): Flag[] {
  return Object.entries(args)
    .filter(([, def]) => def.type !== 'positional')
    .map(([long, def]) => {
      const alias = 'alias' in def ? [def.alias ?? []].flat()[0] : undefined;
      const values = def.type === 'enum' ? def.options : undefined;
      return { long, short: alias, description: (def.description ?? '').replace(/\s+/g, ' '), values, takesValue: def.type === 'string' || def.type === 'enum' };
    });
}

function entries(commands: readonly Command[]): Entry[] {
  return [...commands.map((c) => ({ name: c.name, description: c.description.split(/[.;:](\s|$)/)[0]!, flags: flagsOf(commandArgs(c)) })), ...MODES];
}

const SESSIONS_CMD = `zipfs sessions --json 2>/dev/null | sed -n 's/.*"name": *"\\([^"]*\\)".*/\\1/p'`;

function bash(list: Entry[]): string {
  const cases = list
    .map((e) => `    ${e.name}) opts="${e.flags.flatMap((f) => [`--${f.long}`, ...(f.short ? [`-${f.short}`] : [])]).join(' ')} --help" ;;`)
    .join('\n');
  const values = list
    .flatMap((e) => e.flags.filter((f) => f.values).map((f) => `    --${f.long}) COMPREPLY=($(compgen -W "${f.values!.join(' ')}" -- "$cur")); return ;;`))
    .filter((line, i, all) => all.indexOf(line) === i)
    .join('\n');
  return `# zipfs completion for bash. Load it with: eval "$(zipfs completion bash)"
_zipfs_sessions() { ${SESSIONS_CMD}; }
_zipfs() {
  local cur prev cmd opts
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
    *) opts="--help" ;;
  esac
  if [[ "$cur" == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); else COMPREPLY=($(compgen -f -- "$cur")); fi
}
complete -o filenames -F _zipfs zipfs
`;
}

const quote = (text: string) => text.replaceAll("'", "'\\''").replaceAll('[', '\\[').replaceAll(']', '\\]').replaceAll(':', '\\:');

function zsh(list: Entry[]): string {
  const commands = list.map((e) => `    '${e.name}:${quote(e.description)}'`).join('\n');
  const cases = list
    .map((e) => {
      const specs = e.flags.map((f) => {
        const action = f.long === 'session' ? ':session:_zipfs_sessions' : f.values ? `:value:(${f.values.join(' ')})` : f.takesValue ? ':value:' : '';
        const names = f.short ? `'(-${f.short} --${f.long})'{-${f.short},--${f.long}}'` : `'--${f.long}`;
        return `${names}[${quote(f.description)}]${action}'`;
      });
      return `    ${e.name}) _arguments ${[...specs, "'*:file:_files'"].join(' ')} ;;`;
    })
    .join('\n');
  return `#compdef zipfs
# zipfs completion for zsh. Load it with: source <(zipfs completion zsh)
_zipfs_sessions() { compadd -- \${(f)"$(${SESSIONS_CMD})"}; }
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
  esac
}
compdef _zipfs zipfs
`;
}

function fish(list: Entry[]): string {
  const lines = ['# zipfs completion for fish. Load it with: zipfs completion fish | source', 'complete -c zipfs -f'];
  lines.push(`function __zipfs_sessions; ${SESSIONS_CMD}; end`);
  for (const e of list) lines.push(`complete -c zipfs -n __fish_use_subcommand -a ${e.name} -d '${e.description.replaceAll("'", "\\'")}'`);
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
  return `${lines.join('\n')}\n`;
}

export function completionScript(shell: string | undefined, commands: readonly Command[]): string {
  const list = entries(commands);
  if (shell === 'bash') return bash(list);
  if (shell === 'zsh') return zsh(list);
  if (shell === 'fish') return fish(list);
  throw new ZipfsError('INVALID_INPUT', `Give a shell: zipfs completion ${SHELLS.join('|')} (got ${shell === undefined ? 'none' : `"${shell}"`}).`);
}
