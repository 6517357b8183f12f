"""The sample outputs in README.md and docs/*.md, checked against what the commands print
today, or rewritten.

    python -m ssdlab.app.devtools.docsamples            check every reproducible sample (exit 1
                                                 and a diff when one is out of date)
    python -m ssdlab.app.devtools.docsamples --write    rewrite those samples in their files

A sample is a ```text block right after a ```bash block that holds one command. A command
whose every figure follows from its inputs (a simulation, a scenario run, the documented
experiments, the lessons' list, the gallery, the ext4 comparison) is *reproducible*: it is
run as a fresh clone would run it and its output must match, except for lines of machine
speed (`MASKED`). A sample whose first line is "..." is the output's tail; one whose last
line is "..." its head. Samples of speed benchmarks (`bench`, `guibench`) are what one
machine printed once, and the text beside each names the machine and the date; they are not
run here (some take hours).

The test suite (tests/test_docs.py) runs the same check, so a stale sample fails CI.
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
SSDLAB = ".venv/bin/ssdlab"
PYTHON = ".venv/bin/python"
ELLIPSIS = "..."
# Lines that report the machine's speed: their numbers are masked when compared.
MASKED = (re.compile(r"^engine speed\b"),)
# The commands whose output follows from their inputs alone.
REPRODUCIBLE = (("ssdlab", "simulate"), ("ssdlab", "run"), ("ssdlab", "experiments"),
                ("ssdlab", "figures"), ("ssdlab", "lesson"),
                ("module", "ssdlab.model.lab.ext4compare"))


def documents() -> list[Path]:
    """Every page whose commands and samples are checked: the README, then docs/*.md."""
    return [README, *sorted(DOCS.glob("*.md"))]


def shown_name(doc: Path) -> str:
    return doc.relative_to(ROOT).as_posix() if doc.is_relative_to(ROOT) else str(doc)


@dataclass(frozen=True)
class Block:
    """One fenced code block: its language tag, text, and the line its fence opens on."""

    lang: str
    text: str
    line: int


@dataclass(frozen=True)
class Command:
    """One command line from a ``bash`` block, continuation lines joined, comments dropped."""

    words: tuple[str, ...]
    line: int
    output: Block | None  # the ``text`` block right after, when the command is alone
    doc: Path = README

    def __str__(self) -> str:
        return f"{shown_name(self.doc)} line {self.line}: {shlex.join(self.words)}"


def blocks(markdown: str, doc: Path = README) -> list[Block]:
    found, lang, start, body = [], None, 0, []
    for number, line in enumerate(markdown.splitlines(), 1):
        if line.startswith("```"):
            if lang is None:
                lang, start, body = line[3:].strip(), number, []
            else:
                found.append(Block(lang, "\n".join(body), start))
                lang = None
        elif lang is not None:
            body.append(line)
    if lang is not None:
        raise ValueError(f"{shown_name(doc)} line {start}: code block never closed")
    return found


def commands_in(block: Block, doc: Path = README) -> list[Command]:
    found, pending, first = [], "", 0
    for offset, line in enumerate(block.text.splitlines(), 1):
        if not pending:
            first = block.line + offset
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        words = shlex.split(pending + line, comments=True)
        pending = ""
        if words:
            found.append(Command(tuple(words), first, None, doc))
    return found


def page_commands(doc: Path, markdown: str | None = None) -> list[Command]:
    """The commands of one page, each alone in its block paired with the sample after it."""
    all_blocks = blocks(doc.read_text(encoding="utf-8") if markdown is None else markdown, doc)
    found = []
    for i, block in enumerate(all_blocks):
        if block.lang != "bash":
            continue
        cmds = commands_in(block, doc)
        after = all_blocks[i + 1] if i + 1 < len(all_blocks) else None
        if len(cmds) == 1 and after is not None and after.lang == "text":
            cmds = [Command(cmds[0].words, cmds[0].line, after, doc)]
        found += cmds
    return found


def doc_commands() -> list[Command]:
    """The commands of every checked page, page by page."""
    return [c for doc in documents() for c in page_commands(doc)]


def kind_of(cmd: Command) -> tuple[str, str] | None:
    """("ssdlab", SUBCOMMAND) or ("module", NAME), or None for anything else."""
    w = list(cmd.words)
    if w[0] == SSDLAB and len(w) > 1:
        return "ssdlab", w[1]
    if w[:2] == [PYTHON, "-m"] and len(w) > 2:
        return "module", w[2]
    return None


def reproducible_samples() -> list[Command]:
    return [c for c in doc_commands() if c.output is not None and kind_of(c) in REPRODUCIBLE]


def argv_here(cmd: Command) -> list[str]:
    """The command as this checkout runs it: this interpreter stands for .venv."""
    w = list(cmd.words)
    if w[0] == SSDLAB:
        return [sys.executable, "-m", "ssdlab.app.cli.main", *w[1:]]
    return [sys.executable, *w[1:]]


def head_lines(cmd: Command) -> int | None:
    """How many lines of output a head sample (last line "...") shows; None for the others."""
    shown = cmd.output.text.strip("\n").splitlines() if cmd.output else []
    return len(shown) - 1 if shown and shown[-1].strip() == ELLIPSIS else None


def run(cmd: Command) -> subprocess.CompletedProcess:
    """The command's output as a fresh clone prints it. A head sample's command is stopped
    once it has printed the lines the sample shows (the ext4 comparison prints its first
    table in seconds and the rest in a minute): returncode 0 then says the head came out
    whole, not that the rest would have."""
    env = {**os.environ, "COLUMNS": "100"}
    want = head_lines(cmd)
    if want is None:
        return subprocess.run(argv_here(cmd), cwd=ROOT, capture_output=True, text=True,
                              env=env, timeout=900, stdin=subprocess.DEVNULL)
    env["PYTHONUNBUFFERED"] = "1"  # lines as printed, not when a pipe buffer fills
    with tempfile.TemporaryFile("w+") as err, subprocess.Popen(
            argv_here(cmd), cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True,
            env=env, stdin=subprocess.DEVNULL) as proc:
        out: list[str] = []
        for line in proc.stdout:
            if out or line.strip():  # leading blank lines are not compared
                out.append(line)
            if len(out) >= want:
                proc.terminate()
                break
        proc.stdout.close()
        code = proc.wait(timeout=900)
        err.seek(0)
        whole = len(out) >= want
        return subprocess.CompletedProcess(proc.args, 0 if whole and code <= 0 else code,
                                           "".join(out), err.read())


def comparable(line: str) -> str:
    line = line.rstrip()
    if any(m.search(line) for m in MASKED):
        return re.sub(r"[\d.]+", "#", line)
    return line


def expected_part(sample: str, printed: str) -> tuple[list[str], list[str]]:
    """(the sample's lines, the printed lines they stand for): the whole output, its head
    when the sample ends with "...", its tail when it starts with "..." (blank lines at the
    ends of either are not compared)."""
    shown = sample.strip("\n").splitlines()
    out = printed.strip("\n").splitlines()
    if shown and shown[-1].strip() == ELLIPSIS:
        head = shown[:-1]
        return head, out[:len(head)]
    if shown and shown[0].strip() == ELLIPSIS:
        tail = shown[1:]
        return tail, out[len(out) - len(tail):] if tail else []
    return shown, out


def difference(cmd: Command, printed: str) -> str | None:
    """None when the sample matches what was printed, else a short description."""
    shown, got = expected_part(cmd.output.text, printed)
    a, b = [comparable(x) for x in shown], [comparable(x) for x in got]
    if a == b:
        return None
    lines = [f"{cmd}: the sample output below it (line {cmd.output.line}) is out of "
             "date; `python -m ssdlab.app.devtools.docsamples --write` rewrites it"]
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "(none)"
        y = b[i] if i < len(b) else "(none)"
        if x != y:
            lines += [f"  shown:  {x}", f"  prints: {y}"]
    return "\n".join(lines)


def rewritten(markdown: str, cmd: Command, printed: str) -> str:
    """The page with `cmd`'s sample replaced by what it printed, in the sample's shape."""
    shown = cmd.output.text.strip("\n").splitlines()
    _, got = expected_part(cmd.output.text, printed)
    if shown and shown[-1].strip() == ELLIPSIS:
        got = [*got, ELLIPSIS]
    elif shown and shown[0].strip() == ELLIPSIS:
        got = [ELLIPSIS, *got]
    lines = markdown.split("\n")
    start = cmd.output.line  # the fence line, 1-based: the body starts after it
    end = start + len(cmd.output.text.split("\n")) if cmd.output.text else start
    return "\n".join(lines[:start] + [x.rstrip() for x in got] + lines[end:])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ssdlab.app.devtools.docsamples",
                                 description="Check (or --write) the reproducible sample "
                                             "outputs in README.md and docs/*.md against what "
                                             "the commands print.")
    ap.add_argument("--write", action="store_true", help="rewrite the stale samples in place")
    args = ap.parse_args(argv)
    stale = 0
    # From the last sample up, so that a rewrite never moves the lines of one still to come.
    samples = reproducible_samples()
    for cmd in reversed(samples):
        print(f"running {shlex.join(cmd.words)}", file=sys.stderr, flush=True)
        done = run(cmd)
        if done.returncode != 0:
            print(f"{cmd}: failed with status {done.returncode}: {done.stderr.strip()}",
                  file=sys.stderr)
            return 1
        problem = difference(cmd, done.stdout)
        if problem is None:
            continue
        stale += 1
        if args.write:
            cmd.doc.write_text(rewritten(cmd.doc.read_text(encoding="utf-8"), cmd, done.stdout),
                               encoding="utf-8")
            print(f"rewrote the sample at {shown_name(cmd.doc)} line {cmd.output.line}")
        else:
            print(problem)
    if stale and not args.write:
        return 1
    print(f"{len(samples)} reproducible samples; {stale} "
          f"{'rewritten' if args.write else 'out of date'}")
    return 0


if __name__ == "__main__":
    from ssdlab.model.lab.entrypoint import run_to_reader

    sys.exit(run_to_reader(main))
