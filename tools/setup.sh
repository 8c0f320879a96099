#!/usr/bin/env bash
# tools/setup.sh: installs what scanlab needs, on Debian or Ubuntu (apt-get, through sudo when not
# root). The one list of the project's Debian packages; ./lab runs it before every build, and a
# second run only checks (a moment).
#
#   tools/setup.sh [--preset NAME] [--docs] [--sandbox]
#
# --preset gpu: the cuda-only build, without Boost.Context. --docs: Doxygen and Graphviz are
# required (else installed when possible, and only warned about). --sandbox: bubblewrap is required
# (./lab grade --class), else not installed. Exit status 0 when everything
# required is there; else 1, with one line that says what to run.
set -euo pipefail

MIN_CMAKE=3.24
# package              need      present when (any of: a command, a file; cmake: its version)
PACKAGES='
cmake                  required  cmake
g++                    required  cmd:g++ cmd:c++ cmd:clang++
ninja-build            optional  cmd:ninja
libgtest-dev           required  file:/usr/include/gtest/gtest.h file:/usr/local/include/gtest/gtest.h
libboost-context-dev   emulator  file:/usr/include/boost/context/fiber.hpp file:/usr/local/include/boost/context/fiber.hpp
libcli11-dev           required  file:/usr/include/CLI/CLI.hpp file:/usr/local/include/CLI/CLI.hpp
nlohmann-json3-dev     required  file:/usr/include/nlohmann/json.hpp file:/usr/local/include/nlohmann/json.hpp
patch                  required  cmd:patch
python3                required  cmd:python3
python3-matplotlib     optional  matplotlib
doxygen                docs      cmd:doxygen
graphviz               docs      cmd:dot
bubblewrap             sandbox   cmd:bwrap
'

say() { printf '[lab] %s\n' "$*"; }
warn() { printf '[lab] warning: %s\n' "$*" >&2; }
die() { printf '[lab] error: %s\n' "$*" >&2; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }

preset=default docs=0 sandbox=0
while (($#)); do
  case "$1" in
    --preset) preset=${2:?--preset needs a name}; shift 2 ;;
    --docs) docs=1; shift ;;
    --sandbox) sandbox=1; shift ;;
    *) die "tools/setup.sh: unknown argument '$1' (use --preset NAME, --docs, --sandbox)" ;;
  esac
done
# nvcc where the CUDA toolkit puts it, even when PATH does not say so (./lab does the same).
if ! have nvcc && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

cmake_ok() {
  have cmake || return 1
  local v
  v=$(cmake --version 2>/dev/null | awk 'NR==1 {print $3}')
  [[ -n "$v" && "$(printf '%s\n%s\n' "$MIN_CMAKE" "$v" | sort -V | head -n1)" == "$MIN_CMAKE" ]]
}

present() {  # present SPEC...: any one of them holds
  local spec
  for spec in "$@"; do
    case "$spec" in
      cmake) cmake_ok && return 0 ;;
      matplotlib) /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 && return 0 ;;
      cmd:*) have "${spec#cmd:}" && return 0 ;;
      file:*) [[ -e "${spec#file:}" ]] && return 0 ;;
    esac
  done
  return 1
}

required=() optional=()
while read -r pkg need specs; do
  [[ -n "$pkg" ]] || continue
  # shellcheck disable=SC2086  # specs are words
  present $specs && continue
  case "$need" in
    required) required+=("$pkg") ;;
    emulator) [[ "$preset" == gpu ]] || required+=("$pkg") ;;
    sandbox) ((sandbox)) && required+=("$pkg") ;;
    docs) if ((docs)); then required+=("$pkg"); else optional+=("$pkg"); fi ;;
    *) optional+=("$pkg") ;;
  esac
done <<<"$PACKAGES"
((${#required[@]} + ${#optional[@]})) || exit 0

sudo=""
can_install() {
  have apt-get || return 1
  [[ $(id -u) -eq 0 ]] && return 0
  if have sudo && { sudo -n true 2>/dev/null || [[ -t 0 ]]; }; then sudo=sudo; return 0; fi
  return 1
}
hint() {  # the command a person should run for PKG...
  if have apt-get; then
    local s="sudo "
    [[ $(id -u) -eq 0 ]] && s=""
    printf '%sapt-get update && %sapt-get install -y %s' "$s" "$s" "$*"
  else
    printf 'install with your package manager: %s (Debian names)' "$*"
  fi
}
updated=0
install() {
  can_install || return 1
  if ((updated == 0)); then
    say "apt-get update..."
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null || return 1
    updated=1
  fi
  say "installing $* (apt-get)..."
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null
}

if ((${#required[@]})); then
  say "missing: ${required[*]}"
  install "${required[@]}" || die "could not install ${required[*]}: run: $(hint "${required[@]}")"
fi
if ((${#optional[@]})); then
  install "${optional[@]}" || warn "could not install ${optional[*]} (optional): run: $(hint "${optional[@]}")"
fi
if ! cmake_ok; then
  die "CMake >= $MIN_CMAKE is needed, found '$(cmake --version 2>/dev/null | head -n1)': run: python3 -m pip install --user 'cmake>=$MIN_CMAKE'"
fi
have ninja || warn "ninja not found: building with Unix Makefiles (slower)"
if ! have doxygen || ! have dot; then warn "Doxygen or Graphviz missing: ./lab docs will not work"; fi
exit 0
