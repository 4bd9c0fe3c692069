#!/usr/bin/env bash
# Prints the path of a working Python X.Y interpreter (the newest patch release found), or exits 1 with
# every place looked in on stderr. Looks at: python X.Y on PATH (a pyenv shim counts only if it runs),
# pyenv's versions ($(pyenv root)/versions/X.Y.*), then /usr/bin, /usr/local/bin.
#   tools/find_python.sh 3.13
set -u
want="${1:?usage: tools/find_python.sh X.Y}"
looked=()
works() {  # the interpreter runs and is the wanted version
  [ -x "$1" ] || return 1
  [ "$("$1" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)" = "$want" ]
}
candidates=()
if command -v "python$want" >/dev/null 2>&1; then candidates+=("$(command -v "python$want")"); fi
root="$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")"
for d in $(ls -d "$root/versions/$want".* 2>/dev/null | sort -t. -k3,3n -r); do
  candidates+=("$d/bin/python$want")
done
candidates+=("/usr/local/bin/python$want" "/usr/bin/python$want")
for c in "${candidates[@]}"; do
  if works "$c"; then "$c" -c 'import sys; print(sys.executable)'; exit 0; fi
  looked+=("$c")
done
{
  echo "no Python $want found; looked at:"
  printf '  %s\n' "${looked[@]}"
  echo "install it (pyenv install $want, or your system's python$want package) or pass another with PY=..."
} >&2
exit 1
