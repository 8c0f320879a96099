#!/usr/bin/env bash
# Gradescope's setup.sh (runs once, when the autograder image is built): the lab's Debian packages
# (tools/setup.sh), then the grade build with the repository's stubs, so that each submission
# recompiles only its own kernels. The autograder zip holds the whole lab (solutions included: they
# stay on Gradescope's servers) with this file and run_autograder at its root: see tools/README.md.
set -euo pipefail
SOURCE=${SCANLAB_AUTOGRADER_DIR:-/autograder}/source
# Gradescope's default image (Ubuntu 22.04) has CMake 3.22, older than the lab's 3.25 (CMakePresets.json
# version 6): tools/setup.sh then installs one from PyPI, linked into /usr/local/bin.
bash "$SOURCE/tools/setup.sh" --preset grade
# The grade build with the stubs, configured as run_autograder grades (the kernels' box: gradescope.py).
PYTHONPATH="$SOURCE/tools" python3 -m scanlab_lab gradescope "$SOURCE" --setup
