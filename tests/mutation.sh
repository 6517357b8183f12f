#!/usr/bin/env bash
# Mutation testing of the host layer, as a command (not in CI).
#
# mutmut changes one thing at a time in ssdlab/model/host/journal.py, partition.py, the block
# device's write / trim / range check and the file system's commit / release / discard /
# fstrim code (fscommit.py, fsalloc.py) (a constant, a comparison, an operator...) and runs the host-layer tests
# against each mutant; a mutant no test notices "survives". Config: [tool.mutmut] in
# pyproject.toml. Needs the mutation extra. The hypothesis state machines are left out
# (pytest -k in the config): minutes per mutant would make a run take hours, so the score
# is a lower bound; the planted bugs of tests/test_fs_full_property.py cover them.
#
#   tests/mutation.sh                       the host-layer tests of [tool.mutmut]
#   tests/mutation.sh tests/test_a.py ...   only these test files (e.g. a baseline)
#   MUTANTS="name ..." tests/mutation.sh    only these mutants (names or fnmatch patterns)
#
# Works in a scratch copy of the committed tree (git archive HEAD), so the worktree gets
# no mutants/ directory; one worker, as the machine is shared. PYTHON picks the interpreter.
#
# Last score: 359 of 368 mutants caught (67.1 % before the rule tests of issue 14). The nine
# survivors change nothing observable, so no test can catch them:
#   (named by the file system's modules before they were split out of filesystem.py)
#   filesystem _release 3: mark(..., None) behaves as mark(..., False)
#   filesystem _release 16: data blocks are never in the metadata queues
#   filesystem commit 43, 46, 47 and fstrim 25, 28, 29: zip(strict=...) over arrays that
#     always have the same length
#   journal Journal.commit 15: _append(0) already returns []
set -euo pipefail
root=$(git rev-parse --show-toplevel)
py=${PYTHON:-$root/.venv/bin/python}  # Debian has no plain `python`
# Some mutants loop forever appending to a list (6 GB in half a minute): cap the memory
# of the run so they die of MemoryError (counted as caught) instead of starving the machine.
ulimit -v $((6 * 1024 * 1024))
scratch=$(mktemp -d -t ssdlab-mutation.XXXXXX)
git -C "$root" archive HEAD | tar -x -C "$scratch"
cd "$scratch"
if [ $# -gt 0 ]; then
    "$py" - "$@" <<'PY'
import json, re, sys
text = open("pyproject.toml").read()
files = json.dumps(sys.argv[1:])
text = re.sub(r"pytest_add_cli_args_test_selection = \[.*?\]\n",
              f"pytest_add_cli_args_test_selection = {files}\n", text, flags=re.S)
open("pyproject.toml", "w").write(text)
PY
fi
cls=$'\xc7\x81'  # mutmut names methods module.xǁClassǁmethod__mutmut_N
if [ -n "${MUTANTS:-}" ]; then  # e.g. the survivors of an earlier run, to re-check them
    read -r -a chosen <<< "$MUTANTS"
    "$py" -m mutmut run --max-children 1 "${chosen[@]}"
    "$py" -m mutmut results
    echo "mutants and results kept in $scratch"
    exit 0
fi
"$py" -m mutmut run --max-children 1 \
    "ssdlab.model.host.journal.*" "ssdlab.model.host.partition.*" \
    "ssdlab.model.host.blockdev.x${cls}BlockDevice${cls}write__mutmut_*" \
    "ssdlab.model.host.blockdev.x${cls}BlockDevice${cls}trim__mutmut_*" \
    "ssdlab.model.host.blockdev.x${cls}BlockDevice${cls}_check__mutmut_*" \
    "ssdlab.model.host.fscommit.x${cls}FsCommit${cls}commit__mutmut_*" \
    "ssdlab.model.host.fsalloc.x${cls}FsAllocation${cls}_release__mutmut_*" \
    "ssdlab.model.host.fscommit.x${cls}FsCommit${cls}_discard__mutmut_*" \
    "ssdlab.model.host.fscommit.x${cls}FsCommit${cls}_trim_run__mutmut_*" \
    "ssdlab.model.host.fscommit.x${cls}FsCommit${cls}fstrim__mutmut_*"
"$py" -m mutmut results
echo "mutants and results kept in $scratch (mutmut show NAME there shows a diff)"
