"""Commands that gave a traceback or accepted what fails later (issue 34): each is now one
line naming the field and what is allowed, exit status 2.

plot and chart on names holding matplotlib's mathtext ($\\x$), seeds that are lists and
values of 1e308; figures on an odd index.json in its folder; bench --against a link loop or
a checkout whose child prints junk; lesson validate on a nested {{doc:...}} and on a
compare step naming no row of its experiment. And --help says where code from outside runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.app.cli import figures
from ssdlab.app.cli.main import build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def _results(tmp_path: Path, point: dict, result: dict, spares=(0.1, 0.2)) -> str:
    path = tmp_path / "r.jsonl"
    lines = []
    for s in spares:
        p = {"gc": "greedy", "spare": s, **point}
        lines.append(json.dumps({"error": None, "key": f"k{s}", "point": p,
                                 "result": {"spare": s, "wa": 2.0 + s, **result},
                                 "status": "ok", "wall_s": 0.1}))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.mark.parametrize("fmt", ["png", "svg", "pdf"])
def test_mathtext_in_names_is_drawn_as_text(tmp_path, capsys, fmt):
    results = _results(tmp_path, {"gc": "$\\x$"}, {"$\\x$": 1.5})
    out = tmp_path / f"p.{fmt}"
    assert main(["plot", results, "--x", "spare", "--y", "$\\x$", "--by", "gc",
                 "-o", str(out)]) == 0
    assert out.stat().st_size > 0


def test_a_seed_that_is_a_list_is_named(tmp_path, capsys):
    results = _results(tmp_path, {"seed": [1, 2]}, {})
    for argv in (["plot", results, "--x", "spare", "--y", "wa"],
                 ["chart", results, "--chart", "wa-vs-spare"]):
        assert main([*argv, "-o", str(tmp_path / "p.png")]) == 2
        err = capsys.readouterr().err
        assert "point field 'seed' of run k0.1 must be a whole number; got [1, 2]" in err
        assert err.count("\n") == 1


@pytest.mark.parametrize(("where", "argv", "field"), [
    ("result", ["plot", "--x", "spare", "--y", "wa"], "--y wa"),
    ("point", ["plot", "--x", "spare", "--y", "wa"], "--x spare"),
    ("result", ["chart", "--chart", "wa-vs-spare"], "--chart wa"),
])
def test_values_too_large_to_draw_are_named_with_the_range(tmp_path, capsys, where, argv,
                                                           field):
    if where == "result":
        results = _results(tmp_path, {}, {"wa": 1e308})
    else:
        results = _results(tmp_path, {}, {}, spares=(1e308, 0.1))
    out = tmp_path / "p.png"
    assert main([argv[0], results, *argv[1:], "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{field}: 1e+308" in err and "outside -1e+15 to 1e+15" in err
    assert err.count("\n") == 1 and not out.exists()


# ---- figures: the index.json already in the folder is input ---------------------------------


ODD_INDEXES = {
    "nested": "[" * 100_000 + "]" * 100_000,
    "a list": "[1, 2]",
    "figures not a list": json.dumps({"scale": "small", "figures": 3}),
    "entry without title": json.dumps({"scale": "small", "figures": [
        {"name": "hot-cold", "files": []}]}),
    "cites of the wrong kind": json.dumps({"scale": "small", "figures": [
        {"name": "hot-cold", "title": "t", "shows": "s", "comes_from": "c",
         "numbers": "simulated", "files": [], "cites": [{"article": 1}]}]}),
    "files outside": json.dumps({"scale": "small", "figures": [
        {"name": "hot-cold", "title": "t", "shows": "s", "comes_from": "c",
         "numbers": "simulated", "files": ["/etc/passwd"]}]}),
}


def _write_index(out: str) -> None:
    """index.json and README.md as figures writes them, with no figure drawn now."""
    from ssdlab.app.atomicfile import write_together

    write_together(list(figures._index_files(out, [], "small", "test")))


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", [*ODD_INDEXES, "fifo"])
def test_an_odd_index_in_the_figures_folder_is_written_over(tmp_path, kind):
    index = tmp_path / "index.json"
    if kind == "fifo":
        os.mkfifo(index)
    else:
        index.write_text(ODD_INDEXES[kind])
    assert figures._kept(str(tmp_path), "small", set()) == []
    if kind != "fifo":  # writing over a FIFO is the writers' part (ssdlab/app/atomicfile.py)
        _write_index(str(tmp_path))
        assert json.loads(index.read_text())["figures"] == []


def test_a_well_formed_index_entry_is_kept(tmp_path):
    (tmp_path / "hot-cold.png").write_bytes(b"png")
    entry = {"name": "hot-cold", "title": "t", "shows": "s", "comes_from": "c",
             "numbers": "simulated", "files": ["hot-cold.png"],
             "cites": [{"article": "002", "figure": "4.0"}]}
    (tmp_path / "index.json").write_text(json.dumps({"scale": "small", "figures": [entry]}))
    assert figures._kept(str(tmp_path), "small", set()) == [entry]
    _write_index(str(tmp_path))
    assert "- article 002: 4.0" in (tmp_path / "README.md").read_text()


# ---- bench --against --------------------------------------------------------------------------


def test_against_a_symlink_loop_is_named(tmp_path, capsys):
    loop = tmp_path / "loop"
    loop.symlink_to(loop)
    assert main(["bench", "--scenarios", "--against", str(loop)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ssdlab bench: error: --against: {loop}: cannot be read")
    assert err.count("\n") == 1


@pytest.mark.timeout(300)
def test_against_a_checkout_that_prints_junk_is_named(tmp_path):
    fake = tmp_path / "fake"
    for package in ("ssdlab", "ssdlab/app", "ssdlab/app/cli", "ssdlab/model",
                    "ssdlab/model/lab", "ssdlab/model/flash"):
        (fake / package).mkdir(parents=True)
        (fake / package / "__init__.py").write_text("")
    (fake / "ssdlab" / "assets" / "scenarios").mkdir(parents=True)
    (fake / "ssdlab" / "app" / "cli" / "main.py").write_text("def main():\n    return 0\n")
    # what the timing child imports: this one prints junk and ends well
    (fake / "ssdlab" / "model" / "lab" / "scenario.py").write_text(
        "print('{not json')\nraise SystemExit(0)\n")
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "bench", "--scenarios",
                           "--only", "trace_replay", "--repeat", "1", "--against", str(fake)],
                          cwd=ROOT, capture_output=True, text=True, timeout=280)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ssdlab bench: error: --against: the scenario timing in ")
    assert "'{not json'" in last and "from 0 to 86400 seconds" in last


def test_help_says_where_code_from_outside_runs(capsys):
    sub = next(a for a in build_parser()._actions if a.dest == "command")
    bench_help = " ".join(sub.choices["bench"].format_help().split())
    assert "runs DIR's code" in bench_help
    prepare_help = " ".join(sub.choices["prepare"].format_help().split())
    assert "pickles" in prepare_help


# ---- lesson validate ----------------------------------------------------------------------------


def _lesson(tmp_path: Path, old: str, new: str) -> str:
    text = (ROOT / "ssdlab" / "lessons" / "10_compression.toml").read_text()
    assert old in text
    path = tmp_path / "10_compression.toml"
    path.write_text(text.replace(old, new, 1))
    return str(path)


def test_validate_refuses_a_nested_doc(tmp_path, capsys):
    path = _lesson(tmp_path, "synced the tree in {{doc:sync}}",
                   "synced the tree in {{doc:{{doc:sync}}}}")
    assert main(["lesson", "validate", path]) == 2
    err = capsys.readouterr().err
    assert ".text: {{ and }} only enclose one source as {{doc:ID}}" in err, err
    assert err.startswith(f"ssdlab lesson: error: {path}:") and "steps[" in err


def test_validate_refuses_a_compare_row_that_does_not_exist(tmp_path, capsys):
    path = _lesson(tmp_path, '"without discard: sync time"', '"without discard: no such row"')
    assert main(["lesson", "validate", path]) == 2
    err = capsys.readouterr().err
    assert ".rows[1]: no row of experiment 'discard' contains 'without discard: no such row'" \
        in err, err
    assert err.startswith(f"ssdlab lesson: error: {path}:") and "without discard: sync" in err
