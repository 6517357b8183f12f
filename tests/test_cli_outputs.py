"""Output files are never lost: ssdlab/app/atomicfile.py, and `ssdlab run --csv/--series` on bad,
full and clashing paths."""

import errno
import os
import resource
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ssdlab.app.atomicfile import OutputFileError, atomic_open, check_writable, write_atomic

REPO = Path(__file__).resolve().parents[1]
SCENARIO = REPO / "ssdlab" / "assets" / "scenarios" / "trace_replay.toml"


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


def test_a_finished_write_replaces_the_file_and_keeps_its_permissions(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    target.chmod(0o640)
    write_atomic(target, "new")
    assert target.read_text() == "new"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert leftovers(tmp_path) == []


def test_a_new_file_gets_the_usual_permissions(tmp_path):
    mask = os.umask(0o022)
    try:
        write_atomic(tmp_path / "new.csv", b"x")
    finally:
        os.umask(mask)
    assert stat.S_IMODE((tmp_path / "new.csv").stat().st_mode) == 0o644


@pytest.mark.parametrize("failure", [RuntimeError("boom"), KeyboardInterrupt()])
def test_a_failed_or_interrupted_write_leaves_the_old_file(tmp_path, failure):
    target = tmp_path / "out.csv"
    target.write_text("old")
    with pytest.raises(type(failure)), atomic_open(target) as f:
        f.write("half of the new")
        raise failure
    assert target.read_text() == "old"
    assert leftovers(tmp_path) == []


def test_a_full_disk_at_fsync_is_one_clean_error_and_the_old_file_stays(tmp_path,
                                                                       monkeypatch):
    target = tmp_path / "out.csv"
    target.write_text("old")

    def full(fd):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputFileError, match="No space left on device"):
        write_atomic(target, "new")
    assert target.read_text() == "old"
    assert leftovers(tmp_path) == []


def test_a_symbolic_link_is_followed_not_replaced(tmp_path):
    real = tmp_path / "real.csv"
    real.write_text("old")
    link = tmp_path / "link.csv"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink()
    assert real.read_text() == "new"


def test_a_directory_or_a_missing_folder_is_refused(tmp_path):
    with pytest.raises(OutputFileError, match="is a directory"):
        write_atomic(tmp_path, "x")
    with pytest.raises(OutputFileError, match="is a directory"):
        check_writable(tmp_path)
    with pytest.raises(OutputFileError, match="does not exist"):
        check_writable(tmp_path / "nope" / "out.csv")
    assert list(tmp_path.iterdir()) == []


def test_a_device_is_refused_unopened():
    # only regular files are written (issue 34): a device is never opened, not even /dev/null
    for device in ("/dev/null", "/dev/full"):
        with pytest.raises(OutputFileError, match=f"{device}: cannot be written: it is a "
                           "device, not a regular file"):
            write_atomic(device, "x" * 100_000)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write into any folder")
def test_a_folder_without_write_permission_is_refused_up_front(tmp_path):
    folder = tmp_path / "locked"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(OutputFileError, match="not writable"):
            check_writable(folder / "out.csv")
    finally:
        folder.chmod(0o700)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write any file")
def test_a_read_only_file_is_not_replaced(tmp_path):
    target = tmp_path / "kept.csv"
    target.write_text("old")
    target.chmod(0o444)
    with pytest.raises(OutputFileError, match="permission denied"):
        write_atomic(target, "new")
    assert target.read_text() == "old"


@settings(max_examples=30, deadline=None)
@given(st.binary(max_size=5000), st.text(max_size=200))
def test_what_is_written_is_what_is_read(tmp_path_factory, data, text):
    folder = tmp_path_factory.mktemp("atomic")
    write_atomic(folder / "b", data)
    write_atomic(folder / "t", text)
    assert (folder / "b").read_bytes() == data
    assert (folder / "t").read_bytes().decode("utf-8") == text


def ssdlab_run(*args: str, preexec=None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "run", str(SCENARIO),
                           *args],
                          cwd=REPO, capture_output=True, text=True, timeout=600,
                          preexec_fn=preexec)


def assert_one_line_status_2(done, *words):
    assert done.returncode == 2, done.stderr
    line, = done.stderr.strip().splitlines()
    assert "Traceback" not in done.stderr
    for word in words:
        assert word in line


def test_run_writes_both_files_whole(tmp_path):
    csv, series = tmp_path / "steps.csv", tmp_path / "series.csv"
    csv.write_text("old")
    done = ssdlab_run("--csv", str(csv), "--series", str(series))
    assert done.returncode == 0, done.stderr
    assert csv.read_text().splitlines()[0].startswith("name,")
    assert series.read_text().startswith("sim_s,step,")
    assert leftovers(tmp_path) == []


@pytest.mark.parametrize("clash", ["scenario", "its trace", "each other", "a hard link"])
def test_run_refuses_outputs_that_clash(tmp_path, clash):
    scenario = tmp_path / "s.toml"
    scenario.write_bytes(SCENARIO.read_bytes())
    out = tmp_path / "out.csv"
    out.write_text("old")
    trace = REPO / "ssdlab" / "assets" / "traces" / "mixed.tracefs.txt"
    kept = trace.read_bytes()
    if clash == "scenario":
        argv = [str(scenario), "--csv", str(tmp_path / "." / "s.toml")]
    elif clash == "its trace":
        argv = [str(SCENARIO), "--series", str(trace)]
    elif clash == "each other":
        argv = [str(scenario), "--csv", str(out), "--series",
                str(tmp_path / "x" / ".." / "out.csv")]
        (tmp_path / "x").mkdir()
    else:
        os.link(out, tmp_path / "hard.csv")
        argv = [str(scenario), "--csv", str(out), "--series", str(tmp_path / "hard.csv")]
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "run", *argv], cwd=REPO,
                          capture_output=True, text=True, timeout=600)
    assert_one_line_status_2(done, "name another file")
    assert out.read_text() == "old"
    assert scenario.read_bytes() == SCENARIO.read_bytes()
    assert trace.read_bytes() == kept


def test_run_onto_a_device_is_one_line():
    done = ssdlab_run("--csv", "/dev/full")
    assert_one_line_status_2(done, "--csv /dev/full", "it is a device, not a regular file")


def test_run_with_a_directory_or_an_unusable_folder_as_output(tmp_path):
    assert_one_line_status_2(ssdlab_run("--series", str(tmp_path)), "--series",
                             "is a directory")
    assert_one_line_status_2(ssdlab_run("--csv", str(tmp_path / "no" / "x.csv")), "--csv",
                             "does not exist")
    # Even root cannot create a file in /proc; refused up front or at the end, cleanly.
    assert_one_line_status_2(ssdlab_run("--csv", "/proc/ssdlab-steps.csv"), "--csv")


def _file_size_limit() -> None:
    # What a full disk does to a writer, without filling one: writes past 100 bytes fail
    # (EFBIG). SIGXFSZ would kill the process instead, as it would a real one; ignore it.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (100, resource.RLIM_INFINITY))


def test_a_disk_that_fills_during_run_keeps_the_old_file(tmp_path):
    csv = tmp_path / "steps.csv"
    csv.write_text("old steps")
    done = ssdlab_run("--csv", str(csv), preexec=_file_size_limit)
    assert_one_line_status_2(done, f"--csv {csv}", "cannot be written")
    assert csv.read_text() == "old steps"
    assert leftovers(tmp_path) == []
