"""The commands in README.md and docs/*.md work as written, checked without running the long
ones; the README stays a short front page whose links lead to every guide.

Every command line in a page's ``bash`` blocks must take one of the forms a fresh clone has
after setup (`bash setup.sh ...`, `.venv/bin/ssdlab ...`, `.venv/bin/python -m ...`);
`ssdlab` arguments must parse with the real parser, `python -m` must name a runnable module
whose own parser accepts the arguments, and every file a command reads must exist. The
cheapest commands (--help, a small `simulate`) run for real. A ``text`` block after a
reproducible command (a simulation, a scenario run, the experiments, the lessons' list, the
ext4 comparison) is that command's output today: the command runs and must print it
(`python -m ssdlab.app.devtools.docsamples --write` rewrites a stale one).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import io
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.app.cli.main import build_parser
from ssdlab.app.devtools.docsamples import (
    Command,
    blocks,
    commands_in,
    difference,
    doc_commands,
    documents,
    reproducible_samples,
    shown_name,
)
from ssdlab.app.devtools.docsamples import run as run_sample

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = documents()
# The front page says what SSD Lab is, the two commands, what to try first and where each
# reader goes next; the guides in docs/ hold the rest.
README_MAX_LINES = 150

SSDLAB = ".venv/bin/ssdlab"
PYTHON = ".venv/bin/python"
# Options whose value is a file or folder the command writes: it need not exist yet, but
# the folder it goes into must.
OUTPUT_OPTIONS = {"--csv", "--series", "--tour", "--report", "-o", "--output"}
# A `simulate` example this small runs in about a second, so the test plays it.
CHEAP_SIMULATE_HOST_PAGES = 1 << 20


COMMANDS = doc_commands()


def ssdlab_args(cmd: Command) -> list[str] | None:
    """The `ssdlab` arguments a command passes, or None when it runs something else."""
    w = list(cmd.words)
    if w[0] == SSDLAB:
        return w[1:]
    if w[:3] == ["bash", "setup.sh", "launch"]:
        return w[3:]
    return None


def module_of(cmd: Command) -> tuple[str, list[str]] | None:
    w = list(cmd.words)
    if w[:2] == [PYTHON, "-m"] and len(w) >= 3:
        return w[2], w[3:]
    return None


def parse_ssdlab(args: list[str]) -> argparse.Namespace | int:
    """The parsed namespace, or the exit status argparse chose (--help: 0, error: 2)."""
    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            return build_parser().parse_args(args)
    except SystemExit as stop:
        return stop.code if stop.code is not None else 0


def wants_help(args: list[str]) -> bool:
    return "-h" in args or "--help" in args


def ids(cmds: list[Command]) -> list[str]:
    return [f"{c.doc.stem}-line{c.line}" for c in cmds]


def page_ids(pages: list[Path]) -> list[str]:
    return [shown_name(p) for p in pages]


def prose(page: Path) -> str:
    """The page without its code blocks."""
    return re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)


def test_the_readme_starts_with_the_two_setup_commands():
    first = blocks(README.read_text(encoding="utf-8"))[0]
    assert [c.words for c in commands_in(first)] == [("bash", "setup.sh", "launch"),
                                                     ("bash", "setup.sh", "test")]


def test_the_readme_stays_a_short_front_page():
    lines = len(README.read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines; keep it under {README_MAX_LINES} and move the detail "
        "into a guide in docs/")


@pytest.mark.parametrize("page", PAGES, ids=page_ids(PAGES))
def test_every_code_block_says_whether_it_is_commands_or_output(page):
    # An untagged block could hide a command from every check below.
    for block in blocks(page.read_text(encoding="utf-8"), page):
        assert block.lang in ("bash", "text"), (
            f"{shown_name(page)} line {block.line}: tag the block ```bash (commands) or "
            "```text (output)")


GUIDES = [p for p in PAGES if p != README]


def test_there_are_guides_and_the_readme_links_every_one():
    assert GUIDES, "docs/ holds no guide"
    text = README.read_text(encoding="utf-8")
    unlinked = [shown_name(g) for g in GUIDES if f"]({shown_name(g)})" not in text]
    assert not unlinked, f"README.md links none of {unlinked}"


@pytest.mark.parametrize("page", PAGES, ids=page_ids(PAGES))
def test_every_link_between_pages_leads_somewhere(page):
    for target in re.findall(r"\]\(([^)\s]+)\)", prose(page)):
        if re.match(r"[a-z]+:", target):
            continue  # a web address
        path = target.split("#", 1)[0]
        if path:
            assert (page.parent / path).exists(), (
                f"{shown_name(page)} links to {target}, which is missing")


@pytest.mark.parametrize("page", PAGES, ids=page_ids(PAGES))
def test_no_page_promises_a_duration_it_does_not_say_it_measured(page):
    """'Takes about 10 s' went stale unseen; a time a page gives says how it was measured."""
    for paragraph in re.split(r"\n\s*\n", prose(page)):
        flat = " ".join(paragraph.split())
        claim = re.search(r"\b(takes?|took) (about|around|roughly|up to|a few|several|under|"
                          r"less than|\d[\d.,]* ?(minutes?|hours?)\b)|\btook \d", flat, re.I)
        assert claim is None or "measured" in flat, (
            f"{shown_name(page)}: '{claim.group(0)}...' gives a time without naming the "
            f"measurement (the machine, the command, the date): {flat[:120]}")


BENCH_SAMPLES = [c for c in COMMANDS if c.output is not None
                 and c.words[:2] == (SSDLAB, "bench") and len(c.words) > 2
                 and not c.words[2].startswith("--physics")]


@pytest.mark.parametrize("cmd", BENCH_SAMPLES, ids=ids(BENCH_SAMPLES))
def test_a_bench_sample_shows_c_columns_only_where_the_command_names_the_c_loops(cmd):
    # A clone holds no C loops (they stay outside the project), so without --reference the
    # bench says "C reference not run" and prints no C columns.
    if "--reference" not in cmd.words:
        assert "| C " not in cmd.output.text, (
            f"{cmd}: a clone prints no C columns without --reference; show what it prints")


@pytest.mark.parametrize("cmd", COMMANDS, ids=ids(COMMANDS))
def test_each_command_takes_a_form_that_works_in_a_fresh_clone(cmd):
    w = list(cmd.words)
    ok = (w[:2] == ["bash", "setup.sh"] and len(w) >= 3 and w[2] in ("launch", "test")) \
        or w[0] == SSDLAB or (w[:2] == [PYTHON, "-m"] and len(w) >= 3)
    assert ok, (f"{cmd}: start with `bash setup.sh launch|test`, `{SSDLAB}` or "
                f"`{PYTHON} -m` (nothing is on PATH and Debian has no `python`)")
    assert not any(re.search(r"<[^>]*>|\bN\b|\bFILE\b|\bDIR\b|\[", word) for word in w), (
        f"{cmd}: a placeholder; give concrete values that run as pasted")


SSDLAB_COMMANDS = [c for c in COMMANDS if ssdlab_args(c) is not None]


@pytest.mark.parametrize("cmd", SSDLAB_COMMANDS, ids=ids(SSDLAB_COMMANDS))
def test_each_ssdlab_command_parses_with_the_real_parser(cmd):
    args = ssdlab_args(cmd)
    parsed = parse_ssdlab(args)
    if wants_help(args):
        assert parsed == 0, f"{cmd}: --help must exit 0, got {parsed}"
    else:
        assert isinstance(parsed, argparse.Namespace), f"{cmd}: the parser refused it"


def test_only_a_bare_launch_would_open_the_window():
    # The pages' launch lines with arguments are promised to run headless.
    for cmd in SSDLAB_COMMANDS:
        args = ssdlab_args(cmd)
        if args:
            parsed = parse_ssdlab(args)
            assert wants_help(args) or parsed.command is not None, str(cmd)


class _Parsed(Exception):
    """Raised in place of running a module once its parser has accepted the arguments."""


MODULE_COMMANDS = [c for c in COMMANDS if module_of(c) is not None]


@pytest.mark.parametrize("cmd", MODULE_COMMANDS, ids=ids(MODULE_COMMANDS))
def test_each_python_module_exists_runs_as_main_and_accepts_its_arguments(cmd, monkeypatch):
    name, args = module_of(cmd)
    spec = importlib.util.find_spec(name)
    assert spec is not None and spec.origin, f"{cmd}: no module {name}"
    source = Path(spec.origin).read_text(encoding="utf-8")
    assert re.search(r"^if __name__ == .__main__.:", source, re.M), (
        f"{cmd}: {name} does nothing when run with -m")
    if not args:
        return
    # Let the module's own parser judge the arguments, then stop before any real work.
    original = argparse.ArgumentParser.parse_args

    def parse_then_stop(self, argv=None, namespace=None):
        raise _Parsed(original(self, argv, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_then_stop)
    module = importlib.import_module(name)
    with pytest.raises(_Parsed), contextlib.redirect_stderr(io.StringIO()):
        module.main(args)


def named_paths(cmd: Command) -> list[tuple[str, bool]]:
    """(path, written) for each word that names a file: it has a slash or a file suffix."""
    found, w = [], list(cmd.words)
    for i, word in enumerate(w):
        if i == 0 or word.startswith("-") or word.startswith(".venv/"):
            continue
        value = word.split("=", 1)[-1]
        if "/" in value or re.search(r"\.(toml|png|csv|json|py|sh|txt|log|c)$", value):
            found.append((value, w[i - 1] in OUTPUT_OPTIONS))
    return found


@pytest.mark.parametrize("cmd", COMMANDS, ids=ids(COMMANDS))
def test_every_file_a_command_names_exists(cmd):
    for path, written in named_paths(cmd):
        where = ROOT / path
        if written:
            assert where.parent.is_dir(), f"{cmd}: no folder {where.parent} for {path}"
        else:
            assert where.exists(), f"{cmd}: {path} does not exist"


@pytest.mark.parametrize("page", PAGES, ids=page_ids(PAGES))
def test_every_repository_path_the_text_names_exists(page):
    # A path in backquotes is the repository's, from its top folder, on every page.
    for span in re.findall(r"`([^`\s]+)`", prose(page)):
        if "/" not in span or span.startswith(("-", "/", "../", "~", ".venv", "http")) \
                or re.search(r"[*<>{}\[\]]", span):
            continue
        assert (ROOT / span.rstrip("/")).exists(), (
            f"{shown_name(page)} names `{span}`, which is missing")


def test_the_layout_names_every_package():
    text = "\n".join(p.read_text(encoding="utf-8") for p in PAGES)
    for top in ("app", "model"):
        for init in sorted((ROOT / top).glob("*/__init__.py")):
            package = f"{top}/{init.parent.name}"
            assert f"`{package}/`" in text, f"no page's layout names `{package}/`"


def test_there_is_an_example_of_every_command():
    wanted = {
        "simulate": lambda a, m: a is not None and a[:1] == ["simulate"] and not wants_help(a),
        "run": lambda a, m: a is not None and a[:1] == ["run"],
        "experiments": lambda a, m: a is not None and a[:1] == ["experiments"],
        "bench": lambda a, m: a is not None and a[:1] == ["bench"] and "--physics" not in a,
        "bench --physics": lambda a, m: a is not None and a[:2] == ["bench", "--physics"],
        "ext4compare": lambda a, m: m is not None and m[0] == "ssdlab.model.lab.ext4compare",
        "screenshot": lambda a, m: m is not None and m[0] == "ssdlab.app.devtools.screenshot"
        and "--tour" not in m[1],
        "screenshot --tour": lambda a, m: m is not None
        and m[0] == "ssdlab.app.devtools.screenshot" and "--tour" in m[1],
        "guibench": lambda a, m: m is not None and m[0] == "ssdlab.app.devtools.guibench",
    }
    missing = [name for name, matches in wanted.items()
               if not any(matches(ssdlab_args(c), module_of(c)) for c in COMMANDS)]
    assert not missing, f"no page has a copy-and-run example of {missing}"


def _as_run_here(cmd: Command) -> list[str]:
    """The command as this checkout runs it: the project's interpreter stands for .venv."""
    return [sys.executable, "-m", "ssdlab.app.cli.main", *ssdlab_args(cmd)]


def _run(argv: list[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "COLUMNS": "100"}
    return subprocess.run(argv, cwd=ROOT, capture_output=True, text=True, env=env,
                          timeout=600)


HELP_COMMANDS = [c for c in SSDLAB_COMMANDS if wants_help(ssdlab_args(c))]


@pytest.mark.parametrize("cmd", HELP_COMMANDS, ids=ids(HELP_COMMANDS))
def test_help_commands_run(cmd):
    done = _run(_as_run_here(cmd))
    assert done.returncode == 0, f"{cmd}: {done.stderr}"
    assert done.stdout.startswith("usage: ssdlab"), f"{cmd}: {done.stdout[:200]}"
    assert "Traceback" not in done.stderr


def _simulated_host_pages(args: argparse.Namespace) -> float:
    return args.user_pages * (1 + args.warmup_drive_writes + args.measure_drive_writes)


def _cheap_simulations() -> list[Command]:
    found = []
    for c in SSDLAB_COMMANDS:
        parsed = parse_ssdlab(ssdlab_args(c))
        if isinstance(parsed, argparse.Namespace) and parsed.command == "simulate" \
                and _simulated_host_pages(parsed) <= CHEAP_SIMULATE_HOST_PAGES:
            found.append(c)
    return found


CHEAP_SIMULATIONS = _cheap_simulations()


def test_some_simulate_example_is_small_enough_to_run_here():
    assert CHEAP_SIMULATIONS, (
        f"keep one `simulate` example under {CHEAP_SIMULATE_HOST_PAGES} host pages")


@pytest.mark.parametrize("cmd", CHEAP_SIMULATIONS, ids=ids(CHEAP_SIMULATIONS))
def test_small_simulations_run(cmd):
    done = _run(_as_run_here(cmd))
    assert done.returncode == 0, f"{cmd}: {done.stderr}"
    assert "Traceback" not in done.stderr


SAMPLES = reproducible_samples()


def test_the_pages_show_the_output_of_each_kind_of_reproducible_command():
    kinds = {c.words[1] if c.words[0] == SSDLAB else c.words[2] for c in SAMPLES}
    assert kinds == {"simulate", "run", "experiments", "figures", "lesson",
                     "ssdlab.model.lab.ext4compare"}, kinds


# the gallery's sample is checked by tests/test_gallery.py, which draws the gallery anyway
PLAYED_HERE = [c for c in SAMPLES if c.words[:2] != (SSDLAB, "figures")]


@pytest.mark.parametrize("cmd", PLAYED_HERE, ids=ids(PLAYED_HERE))
def test_each_reproducible_sample_is_what_the_command_prints_today(cmd):
    done = run_sample(cmd)
    assert done.returncode == 0, f"{cmd}: {done.stderr}"
    assert "Traceback" not in done.stderr
    problem = difference(cmd, done.stdout)
    assert problem is None, problem


def test_the_pages_have_help_lines_to_run():
    assert HELP_COMMANDS, "no page shows a `--help` line, so none is run here"


# setup.sh, run in a sandbox: a stand-in .venv whose programs echo their arguments, and a
# PATH without dpkg (so nothing is installed); only the script's own decisions are tested.
SANDBOX_TOOLS = ("bash", "cat", "cut", "dirname", "env", "id", "sha256sum", "rm")


@pytest.fixture
def sandbox(tmp_path):
    shutil.copy(ROOT / "setup.sh", tmp_path)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    venv = tmp_path / ".venv" / "bin"
    venv.mkdir(parents=True)
    for program in ("python", "ssdlab", "ruff"):
        # each also leaves the names of the variables it was given, for the scrub test
        (venv / program).write_text(f'#!/bin/sh\necho "{program} $*"\n'
                                    f'env > "{tmp_path}/{program}.env"\n')
        (venv / program).chmod(0o755)
    digest = subprocess.run(["sha256sum", "pyproject.toml"], cwd=tmp_path, text=True,
                            capture_output=True, check=True).stdout.split()[0]
    (tmp_path / ".venv" / ".ssdlab-pyproject.sha256").write_text(digest + "\n")
    tools = tmp_path / "tools"
    tools.mkdir()
    for tool in SANDBOX_TOOLS:
        (tools / tool).symlink_to(shutil.which(tool))
    (tools / "python3").symlink_to(sys.executable)

    def run(*args: str, **env: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(tools / "bash"), "setup.sh", *args], cwd=tmp_path,
                              capture_output=True, text=True, timeout=60,
                              env={"PATH": str(tools), "HOME": str(tmp_path), **env})

    return run


SETUP_COMMANDS = [c for c in COMMANDS if c.words[:2] == ("bash", "setup.sh")]


@pytest.mark.parametrize("cmd", SETUP_COMMANDS, ids=ids(SETUP_COMMANDS))
def test_each_setup_line_hands_its_arguments_on(cmd, sandbox):
    mode, args = cmd.words[2], list(cmd.words[3:])
    done = sandbox(mode, *args)
    assert done.returncode == 0, f"{cmd}: {done.stderr}"
    if mode == "launch":
        # Setup compiles the simulator first (ssdlab prepare), in both modes.
        assert done.stdout == "ssdlab prepare\nssdlab " + " ".join(args) + "\n"
        # Only a bare launch opens the window, so only it may warn about the display.
        assert ("DISPLAY" in done.stderr) == (not args), f"{cmd}: {done.stderr}"
    else:
        pytest = "python -m pytest -q -n 4 --dist worksteal"  # no nproc here: two cores taken
        assert done.stdout.splitlines() == ["ssdlab prepare", "ruff check .",
                                            " ".join([pytest, *args])]


def test_setup_runs_the_tests_in_a_scrubbed_environment(sandbox, tmp_path):
    """No variable of the machine's may hide a failure a newcomer would see: PYTHON* and
    locale variables and the display are dropped; CI's flag and the temporary folder stay."""
    done = sandbox("test", PYTHONUNBUFFERED="1", PYTHONHASHSEED="0", LANG="C.UTF-8",
                   LC_ALL="C.UTF-8", LANGUAGE="en", DISPLAY=":0", CI="true",
                   TMPDIR=str(tmp_path))
    assert done.returncode == 0, done.stderr
    given = dict(line.split("=", 1) for line in
                 (tmp_path / "python.env").read_text().splitlines() if "=" in line)
    dropped = [k for k in given if k.startswith(("PYTHON", "LC_", "LANG", "DISPLAY"))]
    assert not dropped, f"the tests were given {dropped}"
    assert given["CI"] == "true" and given["TMPDIR"] == str(tmp_path)
    assert given["SSDLAB_SCRUBBED"] == "1"


def test_setup_passes_subcommands_through_without_a_display_warning(sandbox):
    done = sandbox("launch", "simulate", "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ssdlab prepare\nssdlab simulate --help\n"
    assert "DISPLAY" not in done.stderr


def test_setup_warns_about_a_missing_display_only_when_the_window_would_open(sandbox):
    done = sandbox("launch")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "ssdlab prepare\nssdlab \n"
    assert "no DISPLAY" in done.stderr
    assert "DISPLAY" not in sandbox("launch", DISPLAY=":0").stderr
    assert "DISPLAY" not in sandbox("launch", QT_QPA_PLATFORM="offscreen").stderr


def test_setup_refuses_an_unknown_mode(sandbox):
    done = sandbox("lanch")
    assert done.returncode == 2
    assert "usage: bash setup.sh" in done.stderr
