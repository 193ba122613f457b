// The completion scripts `svc completion bash|zsh|fish` prints, written from the completion model
// (itself from the command table), so a new command or flag completes after the next build.
// bash and zsh share one set of POSIX-style lookup functions and a scanner; only the last step,
// handing the candidates to the shell, differs. Ids come from `svc __complete <kind>`, which
// prints nothing when no daemon answers.
import type { CompletionFlag, CompletionModel, ValueKind } from './completion-model.js';

export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** A shell word in single quotes (bash, zsh). */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** A fish string in single quotes (fish escapes \ and ' inside them). */
function fishQuote(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "\\'")}'`;
}

function valueWord(value: ValueKind): string {
  return typeof value === 'string' ? value : `words:${value.words.join(' ')}`;
}

/** A `case` over the node path: one line per node that has something to say. */
function caseOver(
  model: CompletionModel,
  name: string,
  comment: string,
  line: (node: CompletionModel['nodes'][number]) => string | undefined,
): string {
  const arms = model.nodes
    .map((node) => {
      const text = line(node);
      return text === undefined ? undefined : `    ${quote(node.path)}) echo ${quote(text)} ;;`;
    })
    .filter(Boolean);
  return [`# ${comment}`, `${name}() {`, '  case "$1" in', ...arms, '  esac', '}'].join('\n');
}

function flagWords(flags: CompletionFlag[]): string {
  return flags.flatMap((flag) => flag.names).join(' ');
}

/** The functions bash and zsh share: lookups from the model, and the scanner of typed words. */
function sharedFunctions(model: CompletionModel): string {
  const valued: string[] = [];
  for (const node of model.nodes)
    for (const flag of node.flags)
      if (flag.value)
        for (const name of flag.names)
          valued.push(
            `    ${quote(`${node.path}|${name}`)}) echo ${quote(valueWord(flag.value))} ;;`,
          );
  // The program's own flags come last: a command's flag of the same name wins.
  for (const flag of model.globals)
    if (flag.value)
      for (const name of flag.names)
        valued.push(`    *${quote(`|${name}`)}) echo ${quote(valueWord(flag.value))} ;;`);
  const globalValued = model.globals
    .filter((flag) => flag.value)
    .flatMap((flag) => flag.names)
    .join('|');
  return `${caseOver(model, '_svc_children', 'The subcommands of a command path.', (node) =>
    node.children.length ? node.children.map((child) => child.word).join(' ') : undefined,
  )}

${caseOver(model, '_svc_flags', "A command's own flags.", (node) =>
  node.flags.length ? flagWords(node.flags) : undefined,
)}

_svc_global_flags=${quote(`${flagWords(model.globals)} --help`)}

# What a flag's value is (words:..., file, dir, text); fails for a flag without one.
_svc_value() {
  case "$1|$2" in
${valued.join('\n')}
    *) return 1 ;;
  esac
}

# What the Nth positional argument of a command names (file, or an id kind for svc __complete).
_svc_arg() {
  case "$1|$2" in
${model.nodes
  .flatMap((node) =>
    node.args.map((kind, index) =>
      kind ? `    ${quote(`${node.path}|${index}`)}) echo ${kind} ;;` : undefined,
    ),
  )
  .filter(Boolean)
  .join('\n')}
  esac
}

# Reads the words typed between "svc" and the word being completed: the command path, how many
# positional arguments follow it (the first kept: a workflow whose runs to list), a flag still
# waiting for its value, and the daemon-choosing flags, passed on to svc __complete.
_svc_scan() {
  _svc_path='' _svc_pending='' _svc_n=0 _svc_first=''
  _svc_globals=()
  local w
  for w in "$@"; do
    # bash splits --data-dir=/x into three words; the "=" is not an argument.
    [[ $w == '=' ]] && continue
    if [[ -n $_svc_pending ]]; then
      case $_svc_pending in ${globalValued}) _svc_globals+=("$_svc_pending" "$w") ;; esac
      _svc_pending=''
      continue
    fi
    case $w in
      --*=*)
        case \${w%%=*} in ${globalValued}) _svc_globals+=("$w") ;; esac
        continue
        ;;
      -*)
        _svc_value "$_svc_path" "$w" >/dev/null && _svc_pending=$w
        continue
        ;;
    esac
    if [[ $_svc_n -eq 0 && " $(_svc_children "$_svc_path") " == *" $w "* ]]; then
      _svc_path=\${_svc_path:+$_svc_path }$w
    else
      [[ $_svc_n -eq 0 ]] && _svc_first=$w
      _svc_n=$((_svc_n + 1))
    fi
  done
}

# Sets _svc_mode (words, file, dir or none) and _svc_list for the word being completed ($1),
# after _svc_scan.
_svc_candidates() {
  local cur=$1 kind children
  _svc_mode=words _svc_list=''
  if [[ -n $_svc_pending ]]; then
    kind=$(_svc_value "$_svc_path" "$_svc_pending")
    case $kind in
      words:*) _svc_list=\${kind#words:} ;;
      file | dir) _svc_mode=$kind ;;
      *) _svc_mode=none ;;
    esac
    return
  fi
  if [[ $cur == -* ]]; then
    _svc_list="$(_svc_flags "$_svc_path") $_svc_global_flags"
    return
  fi
  children=$(_svc_children "$_svc_path")
  if [[ -n $children && $_svc_n -eq 0 ]]; then
    _svc_list=$children
    return
  fi
  kind=$(_svc_arg "$_svc_path" "$_svc_n")
  case $kind in
    '') _svc_mode=none ;;
    file) _svc_mode=file ;;
    *) _svc_list=$("$_svc_cmd" "\${_svc_globals[@]}" __complete "$kind" \${_svc_first:+"$_svc_first"} 2>/dev/null) ;;
  esac
}`;
}

function bashScript(model: CompletionModel): string {
  return `# svc completion for bash, written by \`svc completion bash\` from svc's command table.
# Install: svc completion bash > ~/.local/share/bash-completion/completions/svc
# (or add to ~/.bashrc: source <(svc completion bash))

${sharedFunctions(model)}

# COMPREPLY: the words of _svc_list that start with $1, each quoted for the command line.
# Not compgen -W, which expands $(...), backticks, \${VAR}, braces and ~ in the words it is given:
# the words are split without globbing, compared as plain text and quoted with printf %q, so an
# id is never run, expanded or inserted unquoted (svc __complete prints only ids anyway).
_svc_offer() {
  local w q
  local -a list
  read -r -d '' -a list <<<"$_svc_list"
  COMPREPLY=()
  for w in "\${list[@]}"; do
    [[ $w == "$1"* ]] || continue
    printf -v q '%q' "$w"
    COMPREPLY+=("$q")
  done
}

_svc() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  _svc_cmd=\${COMP_WORDS[0]}
  _svc_scan "\${COMP_WORDS[@]:1:COMP_CWORD-1}"
  _svc_candidates "$cur"
  case $_svc_mode in
    words) _svc_offer "$cur" ;;
    file)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -f -- "$cur")
      ;;
    dir)
      compopt -o filenames 2>/dev/null
      mapfile -t COMPREPLY < <(compgen -d -- "$cur")
      ;;
    *) COMPREPLY=() ;;
  esac
}
complete -F _svc svc
`;
}

function zshScript(model: CompletionModel): string {
  return `#compdef svc
# svc completion for zsh, written by \`svc completion zsh\` from svc's command table.
# Install: svc completion zsh > ~/.zfunc/_svc, with fpath=(~/.zfunc $fpath) before compinit in
# ~/.zshrc (or, after compinit: source <(svc completion zsh))

${sharedFunctions(model)}

_svc() {
  # zsh's own options (no globbing of expanded words, whatever ~/.zshrc set); compadd quotes
  # what it inserts, and every word reaches it as one argument after --.
  emulate -L zsh
  _svc_cmd=\${words[1]}
  _svc_scan "\${(@)words[2,CURRENT-1]}"
  _svc_candidates "\${words[CURRENT]}"
  case $_svc_mode in
    words) compadd -- \${=_svc_list} ;;
    file) _files ;;
    dir) _files -/ ;;
  esac
}

# Loaded from fpath, this file is the body of _svc; sourced, it registers it.
if [[ "$funcstack[1]" == "_svc" ]]; then
  _svc "$@"
else
  compdef _svc svc
fi
`;
}

function fishFlag(condition: string, flag: CompletionFlag): string {
  const parts = ['complete -c svc'];
  if (condition) parts.push(`-n ${fishQuote(condition)}`);
  for (const name of flag.names)
    parts.push(name.startsWith('--') ? `-l ${name.slice(2)}` : `-s ${name.slice(1)}`);
  if (flag.value) {
    if (typeof flag.value !== 'string')
      parts.push('-x', `-a ${fishQuote(flag.value.words.join(' '))}`);
    else if (flag.value === 'text') parts.push('-x');
    else parts.push('-r', '-F');
  }
  parts.push(`-d ${fishQuote(flag.description)}`);
  return parts.join(' ');
}

function fishScript(model: CompletionModel): string {
  const nodes = model.nodes.filter((node) => node.path).map((node) => fishQuote(node.path));
  const valued = [
    ...model.nodes.flatMap((node) =>
      node.flags
        .filter((flag) => flag.value)
        .flatMap((flag) => flag.names.map((name) => fishQuote(`${node.path}|${name}`))),
    ),
    ...model.globals
      .filter((flag) => flag.value)
      .flatMap((flag) => flag.names.map((name) => fishQuote(`*|${name}`))),
  ];
  const lines: string[] = [];
  for (const node of model.nodes) {
    const at = `__svc_at ${fishQuote(node.path)}`;
    for (const child of node.children)
      lines.push(
        `complete -c svc -f -n ${fishQuote(at)} -a ${fishQuote(child.word)} -d ${fishQuote(child.description)}`,
      );
    for (const flag of node.flags) lines.push(fishFlag(at, flag));
    node.args.forEach((kind, index) => {
      if (!kind) return;
      const where = fishQuote(`${at}; and __svc_args_are ${index}`);
      lines.push(
        kind === 'file'
          ? `complete -c svc -n ${where} -F`
          : `complete -c svc -f -n ${where} -a ${fishQuote(`(__svc_ids ${kind})`)}`,
      );
    });
  }
  for (const flag of model.globals) lines.push(fishFlag('', flag));
  return `# svc completion for fish, written by \`svc completion fish\` from svc's command table.
# Install: svc completion fish > ~/.config/fish/completions/svc.fish

set -g __svc_nodes ${nodes.join(' ')}
set -g __svc_valued ${valued.join(' ')}

# The command path typed so far ("workflows run"), then the number of arguments after it.
function __svc_scan
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l path ''
    set -l count 0
    set -l pending 0
    for w in $tokens
        if test $pending = 1
            set pending 0
            continue
        end
        switch $w
            case '--*=*'
                continue
            case '-*'
                if contains -- "$path|$w" $__svc_valued; or contains -- "*|$w" $__svc_valued
                    set pending 1
                end
                continue
        end
        set -l next (string trim -- "$path $w")
        if test $count = 0; and contains -- $next $__svc_nodes
            set path $next
        else
            set count (math $count + 1)
        end
    end
    echo $path
    echo $count
end

function __svc_at
    test (__svc_scan)[1] = "$argv[1]"
end

function __svc_args_are
    test (__svc_scan)[2] = "$argv[1]"
end

# Ids from the running daemon; nothing when none answers.
function __svc_ids
    set -l words (commandline -opc)
    set -l args
    test "$argv[1]" = runs; and set args $words[-1]
    $words[1] __complete $argv[1] $args 2>/dev/null
end

complete -c svc -f
${lines.join('\n')}
`;
}

export function completionScript(shell: Shell, model: CompletionModel): string {
  if (shell === 'bash') return bashScript(model);
  if (shell === 'zsh') return zshScript(model);
  return fishScript(model);
}
