"""The suite sees what a newcomer's fresh machine gives it.

`bash setup.sh test` (and so CI) runs the tests with a scrubbed environment and marks it
with SSDLAB_SCRUBBED=1. Here, in that run, no variable of the machine's that changes
Python's or the C library's behaviour may have slipped through; and CI, which always runs
through setup.sh, must have the mark.
"""

from __future__ import annotations

import os

import pytest

HIDING = ("PYTHON", "LC_", "LANG", "DISPLAY", "WAYLAND_DISPLAY")


def test_ci_runs_the_suite_through_the_scrubbed_setup_command():
    if os.environ.get("CI") != "true":
        pytest.skip("not CI: a developer may run pytest directly")
    assert os.environ.get("SSDLAB_SCRUBBED") == "1", "CI must run `bash setup.sh test`"


def test_a_scrubbed_run_has_no_variable_that_could_hide_a_failure():
    if os.environ.get("SSDLAB_SCRUBBED") != "1":
        pytest.skip("run directly, not through `bash setup.sh test`")
    # Python itself sets LC_CTYPE=C.UTF-8 when it starts in the C locale (PEP 538's locale
    # coercion): that is what a fresh machine without a locale gets too, not a leak.
    leaked = sorted(k for k, v in os.environ.items() if k.startswith(HIDING)
                    and (k, v) != ("LC_CTYPE", "C.UTF-8"))
    assert not leaked, f"the machine's {leaked} reached the tests"
