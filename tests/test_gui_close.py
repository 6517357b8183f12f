"""A step being prepared (here: reading a tar archive that never ends, so only cancelling can
end it) gives way at once to a command that discards the run, and closing the window then
ends the worker thread instead of aborting Python with "QThread: Destroyed while thread is
still running". Waits are on conditions; the only limits are hang guards.

The archive is a regular file (a FIFO is refused as an input at once, ssdlab/model/inputfile.py),
and tarfile's stream reader is replaced by one whose members never end, so the preparation
lasts until it is cancelled however fast the machine is."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
import tarfile
import textwrap
import threading
from pathlib import Path

from ssdlab.app.session.fsjobs import FsStep

ROOT = Path(__file__).resolve().parents[1]
HANG_GUARD_S = 300


class EndlessArchive:
    """Stands for tarfile.open in stream mode: regular members without end, until the reader
    lets go of it (let_go is set when its `with` block ends)."""

    def __init__(self) -> None:
        self.let_go = threading.Event()

    def __call__(self, *args, **kwargs) -> EndlessArchive:
        return self

    def __enter__(self) -> EndlessArchive:
        return self

    def __exit__(self, *exc) -> bool:
        self.let_go.set()
        return False

    def __iter__(self):
        for i in itertools.count():
            yield tarfile.TarInfo(f"linux/file{i}.c")


def endless_tar(path: Path) -> EndlessArchive:
    """A regular (empty) file at path, and tarfile.open made endless: restore it after."""
    path.write_bytes(b"")
    archive = EndlessArchive()
    tarfile.open = archive
    return archive


def unpack_from(tar: Path) -> FsStep:
    return FsStep("unpack", {"scale": 1.0, "tar": str(tar)}, index=1, sync_after=True)


def fs_drive(until, w) -> None:
    w.request(profile="ocz_vertex_le_100")
    w.request(capacity_mib=256.0)
    until(lambda: w.snapshot.user_pages == w.session.settings.user_pages)


def test_reset_cancels_a_preparation_and_the_window_goes_on(until, bench, tmp_path,
                                                           monkeypatch):
    fs_drive(until, bench)
    monkeypatch.setattr(tarfile, "open", tarfile.open)  # restored after the test
    archive = endless_tar(tmp_path / "tree.tar")
    bench.worker.send("fs", unpack_from(tmp_path / "tree.tar"))
    until(lambda: bench.snapshot.segment.startswith("preparing unpack"))
    assert bench.snapshot.running and bench.is_running()
    bench.reset_drive()
    until(lambda: not bench.snapshot.segment and not bench.snapshot.running)
    assert archive.let_go.wait(HANG_GUARD_S)  # the tar reader let go: it was cancelled
    assert not bench.controls.error.isVisible()  # a cancel is no failure
    assert bench.snapshot.steps == [] and bench.snapshot.log == []
    # The reset drive is formatted again, and its format may already count as data: yes.
    bench.confirm = lambda text: True
    bench.request(workload="fill", capacity_mib=16.0, profile="")
    bench.run_workload()
    until(lambda: bench.snapshot.counters["host_writes"] == 4096 and not bench.snapshot.running)


SCRIPT = textwrap.dedent("""
    import sys, time
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication
    from ssdlab.app.gui.frame.workbench import Workbench
    from tests.test_gui_close import endless_tar, unpack_from
    from pathlib import Path

    tar = Path(sys.argv[1])
    app = QApplication([])
    w = Workbench()

    def until(condition, what):
        end = time.monotonic() + 240  # a hang guard only
        while not condition():
            if time.monotonic() > end:
                sys.exit(f"hang guard: {what}")
            QTest.qWait(5)

    w.show()
    w.request(profile="ocz_vertex_le_100")
    w.request(capacity_mib=256.0)
    until(lambda: w.snapshot is not None and w.snapshot.user_pages == 65536, "drive")
    archive = endless_tar(tar)
    w.worker.send("fs", unpack_from(tar))
    until(lambda: w.snapshot.segment.startswith("preparing unpack"), "preparation")
    w.close()
    finished = w.worker.isFinished()
    print("worker finished:", finished, flush=True)
    if not finished:
        sys.exit("the worker thread outlived the window")
    print("tar reader let go:", archive.let_go.wait(240))
    del w
    app.quit()
""")


def test_closing_the_window_while_a_step_is_prepared_ends_the_thread(tmp_path):
    """In a process of its own: before the fix, Python aborted (status 134)."""
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT))
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "tree.tar")],
                          cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=HANG_GUARD_S)
    assert "QThread: Destroyed" not in done.stderr
    assert done.returncode == 0, done.stderr[-2000:]
    assert "worker finished: True" in done.stdout
    assert "tar reader let go: True" in done.stdout
