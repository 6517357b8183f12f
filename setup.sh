#!/usr/bin/env bash
# Set up what SSD Lab needs, then launch it or run its tests.
#
#   bash setup.sh launch [ssdlab arguments...]   # open the app (needs a display), or
#                                                # run a headless subcommand: simulate, run, ...
#   bash setup.sh test [pytest arguments...]     # ruff, then the whole test suite, across
#                                                # every core, in a scrubbed environment
#
# Steps: install missing Qt system libraries (Debian, as root; otherwise print the
# apt-get command and stop), create .venv, install the project into it in editable mode
# with its test extra (skipped when pyproject.toml is unchanged since the last install),
# then compile the simulator's engine into numba's cache (skipped when it is there).
set -euo pipefail

usage() {
    echo "usage: bash setup.sh {launch|test} [arguments...]" >&2
    exit 2
}

[ $# -ge 1 ] || usage
mode=$1
shift
case "$mode" in
    launch | test) ;;
    *) usage ;;
esac

cd "$(dirname "${BASH_SOURCE[0]}")"

# Qt needs these even offscreen; without fonts text renders as empty boxes.
system_packages=(libegl1 libgl1 libdbus-1-3 libfontconfig1 libglib2.0-0 libxkbcommon0
    fonts-dejavu-core)
# Under a real X server the xcb platform plugin needs these as well.
if [ "$mode" = launch ]; then
    system_packages+=(libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-image0
        libxcb-render-util0 libxcb-shape0 libxkbcommon-x11-0)
fi

is_debian() { [ -f /etc/debian_version ] && command -v dpkg >/dev/null 2>&1; }
is_root() { [ "$(id -u)" -eq 0 ]; }
installed() { [[ "$(dpkg -s "$1" 2>/dev/null)" == *"Status: install ok installed"* ]]; }

apt_install() {
    echo "setup.sh: installing system packages: $*" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq </dev/null
    apt-get install -y -qq --no-install-recommends "$@" </dev/null >/dev/null
}

if is_debian; then
    missing=()
    for package in "${system_packages[@]}"; do
        installed "$package" || missing+=("$package")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        if is_root; then
            apt_install "${missing[@]}"
        else
            echo "setup.sh: missing system packages; install them with:" >&2
            echo "  sudo apt-get install -y ${missing[*]}" >&2
            exit 1
        fi
    fi
else
    echo "setup.sh: not a Debian system; make sure the equivalents of these are installed:" \
        "${system_packages[*]}" >&2
fi

python=${PYTHON:-python3}
if ! "$python" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "setup.sh: SSD Lab needs Python 3.11 or newer as '$python' (set PYTHON=...)" >&2
    exit 1
fi

# A usable venv has a working interpreter and pip; Debian without python3-venv leaves a
# half-made .venv behind, so check for both and start over when either is missing.
venv_ok() { .venv/bin/python -m pip --version >/dev/null 2>&1; }
if ! venv_ok; then
    rm -rf .venv
    if ! "$python" -m venv .venv >/dev/null 2>&1; then
        rm -rf .venv
        if is_debian && is_root; then
            apt_install python3-venv
            "$python" -m venv .venv
        else
            echo "setup.sh: '$python -m venv' failed; on Debian install it with:" >&2
            echo "  sudo apt-get install -y python3-venv" >&2
            exit 1
        fi
    fi
fi

stamp=.venv/.ssdlab-pyproject.sha256
want=$(sha256sum pyproject.toml | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    # A first install downloads about 1 GB (Qt is most of it): pip names each package as
    # it fetches it, with a progress bar on a terminal, so a slow network never looks stuck.
    echo "setup.sh: installing SSD Lab and its test tools into .venv" \
        "(a first install downloads about 1 GB)" >&2
    # (pipefail: pip's own failure still stops the script; grep only thins the lines)
    PIP_NO_INPUT=1 .venv/bin/python -m pip install --disable-pip-version-check \
        --progress-bar on -e '.[test]' </dev/null 2>&1 \
        | { grep --line-buffered -v '^Requirement already satisfied' || true; } >&2
    echo "$want" >"$stamp"
fi

# Compile the simulator now, once, so the first run does not wait for it (nothing to do
# when numba's cache already holds this version of the engine).
.venv/bin/ssdlab prepare </dev/null

case "$mode" in
    launch)
        # Only a bare `ssdlab` opens the window; any argument is a subcommand or --help,
        # which run headless, so a missing display is worth a warning only without one.
        if [ $# -eq 0 ] && [ -z "${DISPLAY:-}${WAYLAND_DISPLAY:-}${QT_QPA_PLATFORM:-}" ]; then
            echo "setup.sh: no DISPLAY or WAYLAND_DISPLAY set; the window may fail to open" \
                "(the subcommands run headless: bash setup.sh launch --help)" >&2
        fi
        exec .venv/bin/ssdlab "$@"
        ;;
    test)
        .venv/bin/ruff check .
        # The tests run in a scrubbed environment, as on a newcomer's fresh machine: no
        # PYTHON* variable (PYTHONUNBUFFERED once hid a bug here), no locale, no display;
        # only what finds programs, a home and a temporary folder, and CI's flag.
        # Two workers per core, at most 8 (about 1 GB of memory each), each taking the next
        # test as it frees (worksteal: no worker idles while another still holds a queue).
        # Two per core because the tests wait about half of their time (a window on its
        # drive's thread, a command's child process): with one per core, a run on two idle
        # cores used 760 s of processor time in 768 s. `-n 0` runs them in one process.
        cores=$(command -v nproc >/dev/null && nproc || echo 2)
        workers=$((cores * 2 > 8 ? 8 : cores * 2))
        keep=(PATH="$PATH" HOME="${HOME:-/tmp}" SSDLAB_SCRUBBED=1)
        for name in TMPDIR CI TERM; do
            [ -n "${!name:-}" ] && keep+=("$name=${!name}")
        done
        exec env -i "${keep[@]}" .venv/bin/python -m pytest -q -n "$workers" --dist worksteal "$@"
        ;;
esac
