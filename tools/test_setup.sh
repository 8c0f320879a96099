#!/usr/bin/env bash
# tools/test_setup.sh: tests tools/setup.sh's platform logic (ctest: lab.setup) on any machine, without
# installing anything. Each case runs setup.sh with PATH set to a folder of its own that holds only
# the few tools it uses, plus fakes: uname (macOS), id (root or not), apt-get, dpkg and dnf that
# only record how they were called; an os-release file of our own (SCANLAB_OS_RELEASE) says which
# Linux it is. So cmake, g++, patch, python3 and the other commands are missing, whatever this
# machine has.
set -euo pipefail

SETUP="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/setup.sh"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
failures=0

fail() { printf 'FAIL: %s\n' "$*"; failures=$((failures + 1)); }

# new_case: a fresh fake bin folder; the real tools setup.sh needs besides the ones it looks for.
new_case() {
  rm -rf "${TMP:?}/bin" "$TMP/calls"
  mkdir "$TMP/bin"
  : >"$TMP/calls"
  local tool
  for tool in bash awk sort head cat grep env; do ln -s "$(command -v "$tool")" "$TMP/bin/$tool"; done
  fake id 'echo 1000'
}
fake() {  # fake NAME BODY: a command that runs BODY (sh) after recording its arguments
  printf '#!/bin/sh\necho "%s $*" >>"%s"\n%s\n' "$1" "$TMP/calls" "$2" >"$TMP/bin/$1"
  chmod +x "$TMP/bin/$1"
}
os_release() { printf '%s\n' "$@" >"$TMP/os-release"; }
run() {  # run ARG...: setup.sh in the fake world; sets out (stdout and stderr) and rc
  rc=0
  out=$(SCANLAB_OS_RELEASE="$TMP/os-release" PATH="$TMP/bin" "$TMP/bin/bash" "$SETUP" "$@" 2>&1) || rc=$?
}
expect_rc() { [[ "$rc" == "$1" ]] || fail "$2: exit status $rc, expected $1. Output:"$'\n'"$out"; }
expect_line() {  # expect_line CASE REGEX: one line of the output matches
  grep -Eq -- "$2" <<<"$out" || fail "$1: no line matches '$2'. Output:"$'\n'"$out"
}
expect_no_line() {
  if grep -Eq -- "$2" <<<"$out"; then fail "$1: a line matches '$2'. Output:"$'\n'"$out"; fi
}
calls() { grep -v '^id ' "$TMP/calls" || true; }  # the calls of the fakes, but id's
expect_calls() {  # expect_calls CASE REGEX: one recorded call matches
  grep -Eq -- "$2" "$TMP/calls" || fail "$1: no call matches '$2'. The calls: $(calls)"
}

# Fedora, no dnf: one error line per missing thing with the dnf name, exit 1, nothing run.
new_case
os_release 'NAME="Fedora Linux"' 'ID=fedora' 'VERSION_ID=40'
run --clang --sandbox
expect_rc 1 fedora
expect_line fedora '^\[lab\] error: missing cmake: run: sudo dnf install -y cmake$'
expect_line fedora '^\[lab\] error: missing g\+\+: run: sudo dnf install -y gcc-c\+\+$'
expect_line fedora '^\[lab\] error: missing clang: run: sudo dnf install -y clang$'
expect_line fedora '^\[lab\] error: missing bubblewrap: run: sudo dnf install -y bubblewrap$'
expect_no_line fedora 'apt-get'

# A Fedora relative (ID_LIKE), dnf present, root: installs with dnf, the dnf names.
new_case
fake id 'echo 0'
fake dnf 'exit 0'
os_release 'ID=almalinux' 'ID_LIKE="rhel centos fedora"'
run
expect_line fedora-dnf '^\[lab\] installing cmake gcc-c\+\+ .*patch python3 \(dnf\)\.\.\.$'
expect_calls fedora-dnf '^dnf install -y -q cmake gcc-c\+\+ .*patch python3$'
expect_calls fedora-dnf '^dnf install -y -q ninja-build' # the optional ones, apart

# --check never installs, even where it could.
new_case
fake id 'echo 0'
fake dnf 'exit 0'
os_release 'ID=fedora'
run --check
expect_rc 1 fedora-check
[[ -z "$(calls)" ]] || fail "fedora-check: --check ran: $(calls)"

# --arm64 on Fedora: the cross build is Debian's; said once for both its missing commands.
new_case
os_release 'ID=fedora'
run --arm64
expect_line fedora-arm64 '^\[lab\] error: missing g\+\+-aarch64-linux-gnu, qemu-user, .*libgmock-dev:arm64: the arm64 build under qemu \(--arm64\) needs Debian or Ubuntu'

# macOS: Homebrew names, Xcode for the compiler; googletest said once for gtest and gmock.
new_case
fake uname 'echo Darwin'
os_release 'ID=debian'  # ignored: uname says macOS
run --sandbox
expect_rc 1 macos
expect_line macos '^\[lab\] error: missing cmake: run: brew install cmake$'
expect_line macos '^\[lab\] error: missing g\+\+: run: xcode-select --install'
expect_line macos '^\[lab\] error: missing patch: run: brew install gpatch$'
expect_line macos '^\[lab\] error: missing bubblewrap: .*--no-sandbox'
expect_no_line macos 'apt-get|dnf|matplotlib'
if [[ ! -e /usr/include/gtest/gtest.h && ! -e /usr/local/include/gtest/gtest.h && ! -e /opt/homebrew/include/gtest/gtest.h ]]; then
  expect_line macos '^\[lab\] error: missing libgtest-dev, libgmock-dev: run: brew install googletest$'
fi

# Another Linux: the Debian names, to translate.
new_case
os_release 'ID=arch'
run
expect_rc 1 other
expect_line other "^\[lab\] error: missing cmake: install with your package manager the equivalent of Debian's cmake$"

# Debian, --check: the one apt-get command line, in one line.
new_case
os_release 'ID=debian'
run --check
expect_rc 1 debian-check
[[ "$(wc -l <<<"$out")" -eq 1 ]] || fail "debian-check: more than one line:"$'\n'"$out"
expect_line debian-check '^\[lab\] error: missing cmake g\+\+ .*python3: run: sudo apt-get update && sudo apt-get install -y cmake g\+\+ .*python3$'

# Debian, root, --arm64: arm64 added as a foreign architecture before apt-get update and install.
new_case
fake id 'echo 0'
fake apt-get 'exit 0'
fake dpkg 'exit 0'
os_release 'ID=ubuntu'
run --arm64
expected="dpkg --print-foreign-architectures
dpkg --add-architecture arm64
apt-get update -q"
[[ "$(calls)" == "$expected"* ]] || fail "debian-arm64: expected first $expected; the calls were: $(calls)"
expect_calls debian-arm64 '^apt-get install -y -q --no-install-recommends cmake g\+\+ .* g\+\+-aarch64-linux-gnu qemu-user libboost-context-dev:arm64 libgtest-dev:arm64 libgmock-dev:arm64$'

# Debian, --arm64, --check, not root: the hint adds the architecture first.
new_case
fake dpkg 'exit 0'
os_release 'ID=debian'
run --arm64 --check
expect_line debian-arm64-check '^\[lab\] error: missing .*: run: sudo dpkg --add-architecture arm64 && sudo apt-get update && sudo apt-get install -y .*libgmock-dev:arm64$'

# Ubuntu 22.04 (Gradescope's default image), root, CMake 3.22 first on PATH: apt's CMake is that one,
# so never apt for it (the other packages: this fake world lacks them all) but a CMake from PyPI (a
# fake pip that writes the wheel's cmake/data/bin/cmake), linked into a folder that then comes first
# on PATH; --pip-cmake-bin names the wheel's folder for ./lab. --check installs nothing.
new_case
fake id 'echo 0'
fake apt-get 'exit 0'
fake dpkg 'exit 0'
fake cmake 'echo "cmake version 3.22.1"'
for tool in ln mkdir chmod; do ln -s "$(command -v "$tool")" "$TMP/bin/$tool"; done
fake python3 'case "$*" in
  "-m pip --version") exit 0 ;;
  "-m pip install"*) while [ $# -gt 0 ]; do [ "$1" = --target ] && dir=$2; shift; done
    mkdir -p "$dir/cmake/data/bin"
    printf "#!/bin/sh\necho \"cmake version 3.31.10\"\n" >"$dir/cmake/data/bin/cmake"
    chmod +x "$dir/cmake/data/bin/cmake" ;;
  *) exit 1 ;;
esac'
os_release 'ID=ubuntu' 'VERSION_ID="22.04"'
export SCANLAB_PIP_CMAKE_DIR="$TMP/pip-cmake" SCANLAB_PIP_CMAKE_BIN="$TMP/local-bin"
run --preset grade --check
expect_rc 1 ubuntu-22.04-check
expect_no_line ubuntu-22.04-check 'apt-get install -y cmake|apt-get install -y .* cmake( |$)'
run --preset grade
expect_rc 0 ubuntu-22.04
expect_calls ubuntu-22.04 '^apt-get install -y -q --no-install-recommends g\+\+ '
if grep -Eq '^apt-get install .* cmake( |$)' "$TMP/calls"; then fail "ubuntu-22.04: apt-get installs cmake: $(calls)"; fi
expect_calls ubuntu-22.04 "^python3 -m pip install .*--target $TMP/pip-cmake cmake>=3.25,<4$"
expect_line ubuntu-22.04 "^\[lab\] CMake 3.31.10 from PyPI: $TMP/pip-cmake/cmake/data/bin/cmake$"
[[ "$(readlink "$TMP/local-bin/cmake")" == "$TMP/pip-cmake/cmake/data/bin/cmake" ]] ||
  fail "ubuntu-22.04: $TMP/local-bin/cmake does not link to the wheel's cmake"
run --pip-cmake-bin
[[ "$rc/$out" == "0/$TMP/pip-cmake/cmake/data/bin" ]] || fail "ubuntu-22.04: --pip-cmake-bin said $rc/$out"
: >"$TMP/calls"
run --preset grade  # again: the wheel's CMake is found, nothing installed from PyPI
expect_rc 0 ubuntu-22.04-again
if grep -q 'pip install' "$TMP/calls"; then fail "ubuntu-22.04-again: installed again: $(calls)"; fi
unset SCANLAB_PIP_CMAKE_DIR SCANLAB_PIP_CMAKE_BIN

# A GPU machine (nvcc, nvidia-smi sees a GPU) without Boost.Context, no network (apt-get fails), root:
# the grade and default presets go on without the emulator's package (CMakeLists.txt leaves the cpu
# backend out); the ci preset, which builds cpu always, stops.
new_case
fake id 'echo 0'
fake apt-get 'exit 100'
fake dpkg 'exit 0'
fake nvcc 'exit 0'
fake nvidia-smi 'echo "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)"'
os_release 'ID=ubuntu'
export SCANLAB_INCLUDE_DIRS="$TMP/include"  # no header of this machine's
run --preset grade
expect_line gpu-no-boost '^\[lab\] missing: cmake g\+\+ libgtest-dev libgmock-dev libcli11-dev '
expect_no_line gpu-no-boost '^\[lab\] missing: .*libboost-context-dev'
expect_line gpu-no-boost '^\[lab\] error: could not install cmake .*: run: apt-get update'
run --preset ci
expect_line gpu-no-boost-ci '^\[lab\] missing: .*libboost-context-dev'
unset SCANLAB_INCLUDE_DIRS

# Unknown option: one line, exit 1.
new_case
run --frobnicate
expect_rc 1 bad-option
expect_line bad-option "^\[lab\] error: tools/setup.sh: unknown argument '--frobnicate'"

if ((failures)); then
  echo "test_setup: $failures failed"
  exit 1
fi
echo "test_setup: all cases passed"
