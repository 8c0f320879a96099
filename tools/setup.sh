#!/usr/bin/env bash
# tools/setup.sh: installs what scanlab needs. The one list of the project's packages (./lab, the dev
# container and tools/portable/ all run this script): on Debian or Ubuntu it installs what is
# missing with apt-get (through sudo when not root), on Fedora with dnf; on macOS, and wherever it
# cannot install, it says what to run, one line per missing thing. A second run only checks (a
# moment).
#
#   tools/setup.sh [--preset NAME] [--docs] [--sandbox] [--arm64] [--clang] [--check]
#   tools/setup.sh --pip-cmake-bin
#
# --preset gpu: the cuda-only build, without Boost.Context; default and grade: Boost.Context is
# optional where nvcc and a GPU are here (CMakeLists.txt then leaves the cpu backend out, and says
# so). --docs: Doxygen and Graphviz are required (else installed when possible, and only warned
# about). --sandbox: bubblewrap is required (./lab grade --class), else not installed. --arm64: the
# cross compiler, qemu and the arm64 libraries of the preset arm64-qemu (tools/portable/arm64.sh;
# Debian only). --clang: clang and libc++ (the clang preset). --check: install nothing, only say what
# is missing. Exit status 0 when everything required is there; else 1, with what to run.
#
# A CMake older than MIN_CMAKE (Ubuntu 22.04's 3.22, Gradescope's default image) is not a matter for
# apt, whose CMake is that old one: a CMake from PyPI goes into PIP_CMAKE_DIR (root: /opt/scanlab-cmake,
# linked into /usr/local/bin; else a folder in the user's home), and ./lab puts its bin folder
# (--pip-cmake-bin prints it) first on PATH. SCANLAB_PIP_CMAKE_DIR and SCANLAB_PIP_CMAKE_BIN change
# those folders (tools/test_setup.sh).
set -euo pipefail

# CMakePresets.json is version 6, which CMake reads from 3.25 on (3.24 says 'Unrecognized "version"
# field'); ./lab also uses cmake --fresh (3.24) and CMakeLists.txt COMPILE_WARNING_AS_ERROR (3.24).
MIN_CMAKE=3.25
# The CMake from PyPI: below 4 (4.0 dropped old policies that third-party CMake files may still need).
PIP_CMAKE="cmake>=$MIN_CMAKE,<4"
# The columns: the Debian package; when it is needed (required; emulator: by the cpu backend;
# optional; docs, sandbox, arm64, clang: with that option); the Homebrew and the Fedora (dnf) names
# (xcode: comes with Xcode's command line tools; -: none there, see unavailable()); and when it is
# present (any of: cmd:COMMAND, inc:HEADER under /usr/include, /usr/local/include or
# /opt/homebrew/include, file:PATH with shell wildcards, deb:PACKAGE installed (dpkg); cmake: its
# version; matplotlib; pymod:MODULE that python3 imports: python3-yaml, for the lab's own test of the
# Classroom workflow). ci: optional with --preset ci alone (nodejs: the lab's own test runs the GitHub
# Classroom actions' code, tools/scanlab_lab/tests/test_classroom_actions.py; skipped without it).
PACKAGES='
cmake                      required  cmake          cmake               cmake
g++                        required  xcode          gcc-c++             cmd:g++ cmd:c++ cmd:clang++
ninja-build                optional  ninja          ninja-build         cmd:ninja
ccache                     optional  ccache         ccache              cmd:ccache
libgtest-dev               required  googletest     gtest-devel         inc:gtest/gtest.h
libgmock-dev               required  googletest     gmock-devel         inc:gmock/gmock.h
libboost-context-dev       emulator  boost          boost-devel         inc:boost/context/fiber.hpp
libcli11-dev               required  cli11          cli11-devel         inc:CLI/CLI.hpp
nlohmann-json3-dev         required  nlohmann-json  json-devel          inc:nlohmann/json.hpp
patch                      required  gpatch         patch               cmd:patch
python3                    required  python         python3             cmd:python3
python3-matplotlib         optional  -              python3-matplotlib  matplotlib
python3-yaml               optional  pyyaml         python3-pyyaml      pymod:yaml
nodejs                     ci        node           nodejs              cmd:node
doxygen                    docs      doxygen        doxygen             cmd:doxygen
graphviz                   docs      graphviz       graphviz            cmd:dot
bubblewrap                 sandbox   -              bubblewrap          cmd:bwrap
clang                      clang     xcode          clang               cmd:clang++
libc++-dev                 clang     xcode          libcxx-devel        inc:c++/v1/vector
libc++abi-dev              clang     xcode          libcxxabi-devel     file:/usr/lib/*/libc++abi.so file:/usr/lib64/libc++abi.so
googletest                 clang     googletest     gtest-devel         file:/usr/src/googletest/CMakeLists.txt
g++-aarch64-linux-gnu      arm64     -              -                   cmd:aarch64-linux-gnu-g++
qemu-user                  arm64     -              -                   cmd:qemu-aarch64 cmd:qemu-aarch64-static
libboost-context-dev:arm64 arm64     -              -                   deb:libboost-context-dev:arm64
libgtest-dev:arm64         arm64     -              -                   deb:libgtest-dev:arm64
libgmock-dev:arm64         arm64     -              -                   deb:libgmock-dev:arm64
'

say() { printf '[lab] %s\n' "$*"; }
warn() { printf '[lab] warning: %s\n' "$*" >&2; }
error() { printf '[lab] error: %s\n' "$*" >&2; }
die() { error "$*"; exit 1; }
have() { command -v "$1" >/dev/null 2>&1; }
# Bash 3.2 too (macOS's /bin/bash): no associative arrays, no "${a[@]}" of an empty array under set -u.

if [[ $(id -u) -eq 0 ]]; then PIP_CMAKE_DIR=${SCANLAB_PIP_CMAKE_DIR:-/opt/scanlab-cmake}
else PIP_CMAKE_DIR=${SCANLAB_PIP_CMAKE_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/scanlab-cmake}; fi
PIP_CMAKE_BIN="$PIP_CMAKE_DIR/cmake/data/bin"  # the wheel's binaries
# shellcheck disable=SC2034  # the want_* are read through ${!want}
preset=default check=0 want_docs=0 want_sandbox=0 want_arm64=0 want_clang=0
while (($#)); do
  case "$1" in
    --preset) preset=${2:?--preset needs a name}; shift 2 ;;
    --docs | --sandbox | --arm64 | --clang) eval "want_${1#--}=1"; shift ;;
    --check) check=1; shift ;;
    --pip-cmake-bin) printf '%s\n' "$PIP_CMAKE_BIN"; exit 0 ;;
    *) die "tools/setup.sh: unknown argument '$1' (use --preset NAME, --docs, --sandbox, --arm64, --clang, --check)" ;;
  esac
done
# A CMake from PyPI that an earlier run installed (below), before an old one on PATH.
if [[ -x "$PIP_CMAKE_BIN/cmake" ]]; then PATH="$PIP_CMAKE_BIN:$PATH"; fi
# nvcc where the CUDA toolkit puts it, even when PATH does not say so (./lab does the same).
if ! have nvcc && [[ -x /usr/local/cuda/bin/nvcc ]]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

# debian (and Ubuntu, WSL's too), fedora (and its relatives), macos or other. SCANLAB_OS_RELEASE:
# another os-release file (the test tools/test_setup.sh); SCANLAB_INCLUDE_DIRS, where inc: looks.
platform() {
  [[ "$(uname -s 2>/dev/null)" == Darwin ]] && { echo macos; return; }
  local file=${SCANLAB_OS_RELEASE:-/etc/os-release} ids=""
  # shellcheck disable=SC1090  # os-release is shell assignments by definition
  [[ -r "$file" ]] && ids=$(. "$file" && echo " ${ID:-} ${ID_LIKE:-} ")
  case "$ids" in
    *" debian "* | *" ubuntu "*) echo debian ;;
    *" fedora "* | *" rhel "* | *" centos "*) echo fedora ;;
    *) echo other ;;
  esac
}
os=$(platform)

cmake_ok() {
  have cmake || return 1
  local v
  v=$(cmake --version 2>/dev/null | awk 'NR==1 {print $3}')
  [[ -n "$v" && "$(printf '%s\n%s\n' "$MIN_CMAKE" "$v" | sort -V | head -n1)" == "$MIN_CMAKE" ]]
}

present() {  # present SPEC...: any one of them holds
  local spec dir
  for spec in "$@"; do
    case "$spec" in
      cmake) cmake_ok && return 0 ;;
      matplotlib) /usr/bin/python3 -c 'import matplotlib' >/dev/null 2>&1 && return 0 ;;
      pymod:*) python3 -c "import ${spec#pymod:}" >/dev/null 2>&1 && return 0 ;;
      cmd:*) have "${spec#cmd:}" && return 0 ;;
      inc:*) for dir in ${SCANLAB_INCLUDE_DIRS:-/usr/include /usr/local/include /opt/homebrew/include}; do
               [[ -e "$dir/${spec#inc:}" ]] && return 0
             done ;;
      file:*) compgen -G "${spec#file:}" >/dev/null && return 0 ;;
      deb:*) [[ "$(dpkg-query -W -f '${Status}' "${spec#deb:}" 2>/dev/null)" == *" installed" ]] && return 0 ;;
    esac
  done
  return 1
}

cuda_here() {  # nvcc, and nvidia-smi sees a GPU (grep reads all: an early exit would SIGPIPE nvidia-smi)
  have nvcc && have nvidia-smi && nvidia-smi -L 2>/dev/null | grep GPU >/dev/null
}

# What is missing (Debian names); `row PKG` gives its line of the table: name need brew dnf.
required=() optional=() missing_rows=""
row() { printf '%s\n' "$missing_rows" | awk -v p="$1" '$1 == p {print; exit}'; }
while read -r pkg need brew dnf specs; do
  [[ -n "$pkg" ]] || continue
  # shellcheck disable=SC2086  # specs are words
  present $specs && continue
  [[ "$pkg" == cmake ]] && have cmake && continue  # there but too old: from PyPI, below
  missing_rows+="$pkg $need $brew $dnf"$'\n'
  case "$need" in
    required) required+=("$pkg") ;;
    # The cpu backend's: not for the gpu preset; optional where the default backends have cuda (nvcc
    # and a GPU here: CMakeLists.txt then leaves cpu out when it is missing, and says so).
    emulator) if [[ "$preset" == gpu ]]; then :
              elif [[ "$preset" == default || "$preset" == grade ]] && cuda_here; then optional+=("$pkg")
              else required+=("$pkg"); fi ;;
    docs) if ((want_docs)); then required+=("$pkg"); else optional+=("$pkg"); fi ;;
    sandbox | arm64 | clang) want="want_$need"; if ((${!want})); then required+=("$pkg"); fi ;;
    ci) if [[ "$preset" == ci ]]; then optional+=("$pkg"); fi ;;
    *) optional+=("$pkg") ;;
  esac
done <<<"$PACKAGES"

# ---- Debian and Fedora: install (apt-get, dnf) or say the one command to run ----------------------
sudo=""
manager() {  # the package manager of this platform, if it is here
  case "$os" in
    debian) have apt-get && echo apt-get ;;
    fedora) have dnf && echo dnf ;;
  esac
  return 0
}
can_install() {
  ((check == 0)) || return 1
  [[ -n "$(manager)" ]] || return 1
  [[ $(id -u) -eq 0 ]] && return 0
  if have sudo && { sudo -n true 2>/dev/null || [[ -t 0 ]]; }; then sudo=sudo; return 0; fi
  return 1
}
arm64_pkgs() { [[ " $* " == *":arm64 "* ]]; }
needs_arch() {  # Debian's arm64 packages need arm64 as a foreign architecture
  arm64_pkgs "$@" && ! dpkg --print-foreign-architectures 2>/dev/null | grep -qx arm64
}
hint() {  # the command a person should run for the Debian packages PKG...
  local s="sudo " arch=""
  [[ $(id -u) -eq 0 ]] && s=""
  needs_arch "$@" && arch="${s}dpkg --add-architecture arm64 && "
  printf '%s%sapt-get update && %sapt-get install -y %s' "$arch" "$s" "$s" "$*"
}
updated=0
install() {  # install PKG... (Debian names): 1 when it cannot
  can_install || return 1
  if [[ "$(manager)" == dnf ]]; then
    local names=() p dnf
    for p in "$@"; do
      dnf=$(row "$p" | awk '{print $4}')
      [[ "$dnf" != - ]] || return 1
      names+=("$dnf")
    done
    say "installing ${names[*]} (dnf)..."
    $sudo dnf install -y -q "${names[@]}" >/dev/null
    return
  fi
  if needs_arch "$@"; then
    say "adding arm64 as a foreign architecture (dpkg --add-architecture arm64)..."
    $sudo dpkg --add-architecture arm64 || return 1
    updated=0
  fi
  if ((updated == 0)); then
    say "apt-get update..."
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q >/dev/null || return 1
    updated=1
  fi
  say "installing $* (apt-get)..."
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@" >/dev/null
}

# ---- Elsewhere: one line per missing thing, with what to run ---------------------------------------
how() {  # how PKG: what to run for the Debian package PKG on this platform
  local pkg need brew dnf name
  read -r pkg need brew dnf <<<"$(row "$1")"
  case "$os" in
    macos) name=$brew ;;
    fedora) name=$dnf ;;
    *) echo "install with your package manager the equivalent of Debian's $pkg"; return ;;
  esac
  case "$name:$need" in
    -:arm64) echo "the arm64 build under qemu (--arm64) needs Debian or Ubuntu (a cross compiler and multiarch libraries)" ;;
    -:sandbox) echo "the sandbox of ./lab grade --class needs Linux (bubblewrap): grade with --no-sandbox" ;;
    -:optional) echo "" ;;  # ./lab has another way (matplotlib: a virtual environment from PyPI)
    -:*) echo "no package here: see tools/setup.sh" ;;
    xcode:*) echo "run: xcode-select --install (Xcode's command line tools)" ;;
    *) if [[ "$os" == macos ]]; then echo "run: brew install $name"; else echo "run: sudo dnf install -y $name"; fi ;;
  esac
}
tell() {  # tell error|warning PKG...: one line per command to run, with the packages it is for
  local kind=$1 p cmd lines=""
  shift
  for p in "$@"; do
    cmd=$(how "$p")
    [[ -n "$cmd" ]] && lines+="$cmd	$p"$'\n'
  done
  # Packages with the same command (googletest: libgtest-dev and libgmock-dev) share a line.
  printf '%s' "$lines" | awk -F'\t' '{ if ($1 in p) p[$1] = p[$1] ", " $2; else { order[n++] = $1; p[$1] = $2 } }
                                     END { for (i = 0; i < n; i++) print p[order[i]] "\t" order[i] }' |
    while IFS=$'\t' read -r pkgs cmd; do
      if [[ "$kind" == error ]]; then error "missing $pkgs: $cmd"
      else warn "missing $pkgs (optional): $cmd"; fi
    done
}

if [[ "$os" == debian ]]; then
  if ((${#required[@]})) && ((check)); then die "missing ${required[*]}: run: $(hint "${required[@]}")"; fi
  if ((${#required[@]})); then
    say "missing: ${required[*]}"
    install "${required[@]}" || die "could not install ${required[*]}: run: $(hint "${required[@]}")"
  fi
  if ((${#optional[@]})); then
    install "${optional[@]}" || warn "could not install ${optional[*]} (optional): run: $(hint "${optional[@]}")"
  fi
else
  if ((${#required[@]})) && ! install "${required[@]}"; then
    tell error "${required[@]}"
    exit 1
  fi
  if ((${#optional[@]})) && ! install "${optional[@]}"; then tell warning "${optional[@]}"; fi
fi
# The system's CMake is too old (Ubuntu 22.04's 3.22): one from PyPI, once (a later run finds it). Its
# wheel holds the real binaries under cmake/data/bin. As root, links to them in /usr/local/bin (before
# /usr/bin on PATH) make them the cmake of every later command, run_autograder's too.
pip_cmake() {
  local t
  if ! python3 -m pip --version >/dev/null 2>&1; then
    install python3-pip || return 1
  fi
  say "CMake $(cmake --version 2>/dev/null | awk 'NR==1 {print $3}') is older than $MIN_CMAKE: installing '$PIP_CMAKE' from PyPI into $PIP_CMAKE_DIR..."
  # (PIP_ROOT_USER_ACTION: no warning as root, where pip knows it; 22.04's pip 22.0 ignores it.)
  PIP_ROOT_USER_ACTION=ignore python3 -m pip install -q --disable-pip-version-check --upgrade \
    --target "$PIP_CMAKE_DIR" "$PIP_CMAKE" || return 1
  if [[ $(id -u) -eq 0 ]]; then
    local bin=${SCANLAB_PIP_CMAKE_BIN:-/usr/local/bin}
    mkdir -p "$bin" || return 1
    for t in cmake ctest cpack; do ln -sf "$PIP_CMAKE_BIN/$t" "$bin/$t" || return 1; done
  fi
  PATH="$PIP_CMAKE_BIN:$PATH"
  hash -r
  say "CMake $(cmake --version | awk 'NR==1 {print $3}') from PyPI: $PIP_CMAKE_BIN/cmake"
}
if have cmake && ! cmake_ok && ((check == 0)); then
  pip_cmake || warn "could not install a CMake from PyPI"
fi
if ! cmake_ok; then
  die "CMake >= $MIN_CMAKE is needed, found '$(cmake --version 2>/dev/null | head -n1)': run: python3 -m pip install --user '$PIP_CMAKE'"
fi
have ninja || warn "ninja not found: building with Unix Makefiles (slower)"
if ! have doxygen || ! have dot; then warn "Doxygen or Graphviz missing: ./lab docs will not work"; fi
exit 0
