"""Where SSD Lab writes files, nothing is lost and nothing hangs (issue 34).

One mechanism per cause, each pinned here: ssdlab/app/atomicfile.py writes only regular files (a
FIFO, a device, a socket or a folder is refused unopened), writes files that belong together
(a CSV and its sidecar, a gallery figure and its index) all or none, and names its temporary
files after the process (ssdlab/model/partialfiles.py) so the next write removes those a killed
process left; a sidecar never silently replaces a file SSD Lab did not write; `figures`
writes only into a folder of its own; a sweep appending on a full disk keeps its whole lines.
"""

from __future__ import annotations

import errno
import json
import os
import resource
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from ssdlab.app.atomicfile import OutputFileError, check_writable, write_atomic
from ssdlab.app.cli.main import main
from tests.test_attack_files import TINY_SWEEP  # the same small sweep

ROOT = Path(__file__).resolve().parents[1]
SCENARIO = ROOT / "ssdlab" / "assets" / "scenarios" / "alignment_firstgen.toml"


def _results(tmp_path: Path) -> str:
    """A small sweep results file plot and chart can draw."""
    path = tmp_path / "results.jsonl"
    lines = []
    for spare in (0.1, 0.2, 0.3):
        point = {"gc": "greedy", "spare": spare}
        lines.append(json.dumps({"key": json.dumps(point, sort_keys=True), "status": "ok",
                                 "point": point, "ssdlab_version": "0.1.0", "error": None,
                                 "wall_s": 0.1,
                                 "result": {"wa": 1 / spare, "theory_wa": 1.1 / spare,
                                            "spare": spare}}, sort_keys=True))
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


def _failing_fsync(monkeypatch, after: int) -> None:
    """os.fsync succeeds `after` times, then fails as on a full disk."""
    real, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) > after:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(fd)

    monkeypatch.setattr(os, "fsync", fsync)


@pytest.fixture(params=["fifo", "/dev/null", "socket", "folder"])
def not_a_file(request, tmp_path) -> str:
    if request.param == "fifo":
        path = tmp_path / "out.csv"
        os.mkfifo(path)  # an open() for writing waits for a reader, for ever
        return str(path)
    if request.param == "socket":
        path = tmp_path / "out.csv"
        s = socket.socket(socket.AF_UNIX)
        s.bind(str(path))
        request.addfinalizer(s.close)
        return str(path)
    if request.param == "folder":
        (tmp_path / "out.csv").mkdir()
        return str(tmp_path / "out.csv")
    return request.param


# ---- hangs: an output that is not a regular file is refused before anything is opened -------


@pytest.mark.timeout(60)
def test_the_writer_refuses_what_is_not_a_regular_file_unopened(not_a_file, tmp_path):
    from ssdlab.app.atomicfile import write_together

    for write in (check_writable, lambda p: write_atomic(p, "x"),
                  lambda p: write_together([(str(tmp_path / "ok.csv"), "x"), (p, "y")])):
        with pytest.raises(OutputFileError) as e:
            write(not_a_file)
        assert str(e.value).startswith(f"{not_a_file}: cannot be written: it is ")
        assert "\n" not in str(e.value)
    assert not (tmp_path / "ok.csv").exists()  # its partner was refused: neither is written
    assert _leftovers(tmp_path) == []


@pytest.mark.timeout(120)
@pytest.mark.parametrize("command", ["plot", "chart", "run --csv", "run --series"])
def test_a_fifo_as_a_commands_output_is_refused_at_once(tmp_path, capsys, command):
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    if command == "plot":
        argv = ["plot", _results(tmp_path), "--x", "spare", "--y", "wa", "-o", str(fifo)]
    elif command == "chart":
        argv = ["chart", _results(tmp_path), "--chart", "wa-vs-spare", "-o", str(fifo)]
    else:
        argv = ["run", str(SCENARIO), command.split()[1], str(fifo)]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "it is a pipe (FIFO), not a regular file" in err


@pytest.mark.timeout(120)
def test_a_fifo_where_a_sidecar_goes_is_refused_at_once(tmp_path, capsys):
    os.mkfifo(tmp_path / "out.json")
    assert main(["plot", _results(tmp_path), "--x", "spare", "--y", "wa", "-o",
                 str(tmp_path / "out.csv")]) == 2
    assert "out.json: cannot be written: it is a pipe" in capsys.readouterr().err
    assert not (tmp_path / "out.csv").exists()


@pytest.mark.timeout(120)
def test_lesson_run_refuses_a_fifo_report_before_playing(tmp_path, capsys, monkeypatch):
    from ssdlab.lessons import find, player

    lesson = find("1")
    os.mkfifo(tmp_path / f"{lesson.id}.md")
    monkeypatch.setattr(player, "play", lambda *a, **k: pytest.fail("played the lesson"))
    assert main(["lesson", "run", "1", "--report", str(tmp_path)]) == 2
    assert "--report" in capsys.readouterr().err


@pytest.mark.timeout(300)
def test_lesson_run_never_replaces_a_file_in_the_report_folder_it_did_not_write(tmp_path,
                                                                                 capsys):
    from ssdlab.lessons import find

    theirs = tmp_path / f"{find('1').id}.md"
    theirs.write_text("# my own notes\n")
    assert main(["lesson", "run", "1", "--report", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(theirs) in err
    assert theirs.read_text() == "# my own notes\n"
    theirs.unlink()
    for _ in range(2):  # the second time the report there is its own: replaced
        assert main(["lesson", "run", "1", "--report", str(tmp_path)]) == 0
    assert theirs.read_text().startswith("# Lesson 1: ")


@pytest.mark.timeout(120)
def test_the_keyboard_walk_refuses_a_fifo_transcript_before_walking(tmp_path, capsys):
    from ssdlab.app.devtools import keyboardwalk

    fifo = tmp_path / "walk.txt"
    os.mkfifo(fifo)
    assert keyboardwalk.main(["-o", str(fifo)]) == 2
    assert "it is a pipe (FIFO)" in capsys.readouterr().err


# ---- nothing changed before all can succeed ----------------------------------------------------


def test_files_written_together_are_all_or_none_on_a_full_disk(tmp_path, monkeypatch):
    from ssdlab.app.atomicfile import write_together

    a, b = tmp_path / "a.csv", tmp_path / "a.json"
    a.write_text("old csv")
    b.write_text("old json")
    _failing_fsync(monkeypatch, after=1)  # the second file does not fit
    with pytest.raises(OutputFileError, match="a.json: cannot be written: No space"):
        write_together([(a, "new csv"), (b, "new json")])
    assert a.read_text() == "old csv" and b.read_text() == "old json"
    assert _leftovers(tmp_path) == []


@pytest.mark.parametrize("command", ["plot", "chart"])
def test_a_csv_is_not_replaced_when_its_sidecar_cannot_be_written(tmp_path, monkeypatch,
                                                                    capsys, command):
    results = _results(tmp_path)
    out = tmp_path / "x.csv"
    out.write_text("the person's old table")
    _failing_fsync(monkeypatch, after=1)
    how = ["--x", "spare", "--y", "wa"] if command == "plot" else ["--chart", "wa-vs-spare"]
    assert main([command, results, *how, "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "No space left on device" in err
    assert out.read_text() == "the person's old table"
    assert not (tmp_path / "x.json").exists() and _leftovers(tmp_path) == []


@pytest.mark.timeout(300)
def test_run_replaces_neither_csv_when_one_cannot_be_written(tmp_path, monkeypatch, capsys):
    steps, series = tmp_path / "steps.csv", tmp_path / "series.csv"
    steps.write_text("old steps")
    series.write_text("old series")
    _failing_fsync(monkeypatch, after=1)  # --csv fits, --series does not
    assert main(["run", str(ROOT / "ssdlab" / "assets" / "scenarios" / "trace_replay.toml"),
                 "--csv",
                 str(steps), "--series", str(series)]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("ssdlab run: error: --series ") and "No space left" in err
    assert steps.read_text() == "old steps" and series.read_text() == "old series"
    assert _leftovers(tmp_path) == []


# ---- a sidecar never silently replaces a file SSD Lab did not write --------------------------


@pytest.mark.parametrize("command", ["plot", "chart"])
def test_a_sidecar_refuses_to_replace_a_file_it_did_not_write(tmp_path, capsys, command):
    results = _results(tmp_path)
    notes = tmp_path / "n.json"
    notes.write_text('{"my": "notes"}')
    how = ["--x", "spare", "--y", "wa"] if command == "plot" else ["--chart", "wa-vs-spare"]
    argv = [command, results, *how, "-o", str(tmp_path / "n.csv")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(notes) in err and "--overwrite" in err
    assert notes.read_text() == '{"my": "notes"}' and not (tmp_path / "n.csv").exists()
    # asked for, it is replaced; and a sidecar SSD Lab wrote is replaced without asking
    assert main([*argv, "--overwrite"]) == 0
    assert json.loads(notes.read_text())["chart"]
    capsys.readouterr()
    assert main(argv) == 0


def test_a_chart_in_an_output_folder_never_replaces_a_file_ssd_lab_did_not_write(tmp_path,
                                                                                   capsys):
    results, out = _results(tmp_path), tmp_path / "figs"
    argv = ["plot", results, "--x", "spare", "--y", "wa", "--format", "pdf,svg,csv", "-o",
            str(out)]
    assert main(argv) == 0
    assert main(argv) == 0  # its own files: replaced without a word
    theirs = out / "plot.svg"
    theirs.write_text("<svg>someone's drawing</svg>")
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(theirs) in err and "--overwrite" in err
    assert theirs.read_text() == "<svg>someone's drawing</svg>"
    assert main([*argv, "--overwrite"]) == 0 and b"ssdlab_version" in theirs.read_bytes()


# ---- figures writes only into a folder of its own ----------------------------------------------


def test_figures_refuses_a_folder_of_someone_elses_files(tmp_path, capsys):
    (tmp_path / "README.md").write_text("my project")
    (tmp_path / "index.json").write_text('{"pages": [1, 2]}')
    assert main(["figures", "-o", str(tmp_path), "--small", "--only", "compression"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "figures did not make" in err
    assert (tmp_path / "README.md").read_text() == "my project"
    assert (tmp_path / "index.json").read_text() == '{"pages": [1, 2]}'
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md", "index.json"]


@pytest.mark.timeout(600)
def test_figures_writes_a_new_folder_then_the_same_one_again(tmp_path, capsys):
    out = tmp_path / "gallery"
    for _ in range(2):  # the second time the folder is its own: accepted
        assert main(["figures", "-o", str(out), "--small", "--only", "compression"]) == 0
    assert json.loads((out / "index.json").read_text())["figures"][0]["name"] == "compression"
    assert _leftovers(out) == []


@pytest.mark.timeout(600)
def test_figures_on_a_full_disk_is_one_line_and_leaves_nothing_partial(tmp_path, capsys,
                                                                       monkeypatch):
    out = tmp_path / "gallery"
    _failing_fsync(monkeypatch, after=3)  # the index and some of the figure's files fit
    assert main(["figures", "-o", str(out), "--small", "--only", "compression"]) == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("ssdlab figures: error: -o ") and "No space left on device" in err
    assert list(out.iterdir()) == []  # not even the index: the figure's files go together


@pytest.fixture
def tiny_disk(tmp_path):
    """A 64 KiB file system (tmpfs; root only): a real full disk, unmounted after."""
    folder = tmp_path / "tiny"
    folder.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)],
                          capture_output=True)
    if done.returncode:
        pytest.skip("mounting a tmpfs needs root")
    try:
        yield folder
    finally:
        subprocess.run(["umount", str(folder)], check=True)


@pytest.mark.timeout(600)
def test_figures_on_a_real_full_disk(tiny_disk):
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "figures", "-o",
                           str(tiny_disk / "g"), "--small", "--only", "compression"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "No space left on device" in done.stderr.strip().splitlines()[-1]
    assert list((tiny_disk / "g").iterdir()) == []


# ---- a sweep appending on a full disk keeps the lines it had -------------------------------------


@pytest.mark.timeout(300)
def test_a_sweep_on_a_full_disk_keeps_its_whole_lines(tmp_path, capsys, monkeypatch):
    spec, out = tmp_path / "s.toml", tmp_path / "r.jsonl"
    spec.write_text(TINY_SWEEP)
    _failing_fsync(monkeypatch, after=1)  # the first line is kept, the second does not fit
    assert main(["sweep", str(spec), "-o", str(out), "--jobs", "1"]) == 2
    err = capsys.readouterr().err
    assert "No space left on device" in err and "--resume" in err and "Traceback" not in err
    text = out.read_text()
    assert text.endswith("\n") and len(text.splitlines()) == 1
    json.loads(text)


def test_a_line_cut_short_by_a_full_disk_is_taken_back(tmp_path, monkeypatch):
    from ssdlab.app.atomicfile import append_whole, open_append

    path = tmp_path / "r.jsonl"
    path.write_bytes(b'{"whole": 1}\n')
    real_write = os.write

    def half_then_full(fd, data):  # half the line reaches the disk, then it is full
        real_write(fd, bytes(data[:len(data) // 2]))
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    fd = open_append(path)
    try:
        monkeypatch.setattr(os, "write", half_then_full)
        with pytest.raises(OutputFileError, match="No space left on device"):
            append_whole(fd, path, b'{"second": 2}\n')
    finally:
        os.close(fd)
    assert path.read_bytes() == b'{"whole": 1}\n'


@pytest.mark.timeout(300)
def test_a_sweep_resumed_on_a_real_full_disk_keeps_its_file(tiny_disk, tmp_path):
    spec, out = tmp_path / "s.toml", tiny_disk / "r.jsonl"
    spec.write_text(TINY_SWEEP)
    record = {"error": None, "key": "", "point": {"gc": "greedy", "spare": 0.9},
              "result": {"spare": 0.9, "wa": 1.0, "theory_wa": 1.0}, "status": "ok",
              "wall_s": 0.1}
    pad = 4096 - len(json.dumps(record, sort_keys=True) + "\n")
    record["key"] = "k" * pad  # the line fills its page: the next byte needs a new one
    kept = (json.dumps(record, sort_keys=True) + "\n").encode()
    out.write_bytes(kept)
    with open(tiny_disk / "filler", "wb", buffering=0) as f:  # the rest of the disk
        with pytest.raises(OSError):
            while True:
                f.write(b"x" * 4096)
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "sweep", str(spec), "-o",
                           str(out), "--resume", "--jobs", "1"], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert "No space left on device" in done.stderr and "--resume" in done.stderr
    assert out.read_bytes() == kept


# ---- temporary files: removed on failure, and those a killed process left, later -----------


KILLED_WRITER = """
import sys
from ssdlab.app.atomicfile import atomic_open
with atomic_open(sys.argv[1]) as f:
    f.write("half")
    print("writing", flush=True)
    sys.stdin.read()  # killed here, its temporary file still there
"""


@pytest.mark.timeout(120)
def test_a_temporary_file_left_by_a_killed_writer_is_removed_by_the_next(tmp_path):
    target = tmp_path / "x.csv"
    target.write_text("old")
    proc = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(target)], cwd=ROOT,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline() == "writing\n"
        left = _leftovers(tmp_path)
        assert len(left) == 1 and left[0].startswith(f".x.csv.{proc.pid}.")
        # another writer's temporary file is never touched while that writer lives
        write_atomic(target, "mine")
        assert _leftovers(tmp_path) == left
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert target.read_text() == "mine"
    write_atomic(target, "new")
    assert _leftovers(tmp_path) == [] and target.read_text() == "new"


def test_only_stale_files_of_the_targets_own_pattern_are_reaped(tmp_path):
    from ssdlab.model.partialfiles import SUFFIX, make_temp, reap

    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    dead = int(done.stdout)  # a process that has ended
    names = [f".x.csv.{dead}.abc{SUFFIX}",  # x.csv's, its maker gone: removed
             f".x.csv.{os.getpid()}.abc{SUFFIX}",  # this live process's: kept
             f".x.csv.{dead}.2.abc{SUFFIX}",  # x.csv.<dead>'s, another file's: kept
             f".x.csv.{dead}.abc.tmp", "x.csv", f".y.csv.{dead}.abc{SUFFIX}"]
    for name in names:
        (tmp_path / name).write_text("")
    assert reap(tmp_path, ".x.csv.") == [names[0]]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names[1:])
    fd, temp = make_temp(tmp_path / "y.csv")  # a new temporary file reaps its target's
    os.close(fd)
    assert not (tmp_path / names[-1]).exists() and Path(temp).exists()


def _file_size_limit(limit: int):
    """A full disk without filling one: writes past `limit` bytes fail (EFBIG)."""
    import contextlib

    @contextlib.contextmanager
    def limited():
        old_handler = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        old = resource.getrlimit(resource.RLIMIT_FSIZE)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, old[1]))
        try:
            yield
        finally:
            resource.setrlimit(resource.RLIMIT_FSIZE, old)
            signal.signal(signal.SIGXFSZ, old_handler)

    return limited()


@pytest.mark.parametrize("cache", ["trees", "rows"])
def test_a_cache_on_a_full_disk_leaves_no_temporary_file(tmp_path, monkeypatch, cache):
    from ssdlab.model.host import treecache
    from ssdlab.model.lab import rowcache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    with _file_size_limit(100):
        if cache == "trees":
            treecache.store(1.0, 7, [f"linux/file{i}.c" for i in range(100)], [4096] * 100)
        else:
            rowcache.cached_rows("x", replay=_rows)
    folder = tmp_path / "ssdlab" / ("trees" if cache == "trees" else "experiments")
    assert folder.is_dir() and list(folder.iterdir()) == []


def _rows():
    from ssdlab.model.lab.documented import Row

    return [Row("000", "a long experiment name " * 4, "q", "s", 1.0, 1.0, "predicted",
                "within 10 %", True, "why") for _ in range(5)]


# ---- lessons.json of another format is set aside, never overwritten -----------------------------


def test_a_lessons_file_of_another_format_is_set_aside_not_overwritten(tmp_path):
    from ssdlab.app.session.progress import load_progress

    path = tmp_path / "lessons.json"
    path.write_text('{"format": 2, "finished": ["from a newer SSD Lab"]}')
    progress = load_progress(path)
    assert "starting afresh" in progress.problem and "lessons.json.bad" in progress.problem
    progress.visit("trim", 2)  # opening a lesson saves
    assert (tmp_path / "lessons.json.bad").read_text() == \
        '{"format": 2, "finished": ["from a newer SSD Lab"]}'
    assert json.loads(path.read_text())["at"] == {"trim": 2}
    path.write_text("not json")  # a second bad file keeps the first one's copy too
    load_progress(path)
    assert (tmp_path / "lessons.json.bad2").read_text() == "not json"
