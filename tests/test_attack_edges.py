"""Behaviour pinned at its edges, where planted bugs went unseen (issue 20): the atomic file
writer (a failure mid-write, another file system, permissions, links), the session file's
ranges (both ends of every range, and just outside), breakpoints on an event that is the
last of its batch, and the time series' WA in bytes with read-modify-write on every row."""

from __future__ import annotations

import math
import os
import stat
import tempfile
from pathlib import Path

import numpy as np
import pytest

from ssdlab.app.atomicfile import OutputFileError, atomic_open, write_atomic
from ssdlab.app.session.schema import SETTINGS, Field, check_record
from ssdlab.app.session.sessionfile import FS_ENTRY, SEGMENT
from ssdlab.model.flash.commands import Commands
from ssdlab.model.flash.drive import Drive, event_capacity_for
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.state import EV_ERASE, EV_VICTIM, OP_WRITE
from ssdlab.model.lab.breakpoints import Breakpoints, BreakpointWatch
from tests.test_breakpoints import _run_batch

# ---- the atomic file writer ------------------------------------------------------------------


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".partial"))


def test_a_failure_mid_write_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "out.csv"
    path.write_text("old\n")
    with pytest.raises(RuntimeError), atomic_open(path) as f:
        f.write("new, half written\n" * 1000)
        f.flush()
        raise RuntimeError("the program failed here")
    assert path.read_text() == "old\n" and _leftovers(tmp_path) == []


def test_the_temporary_lies_beside_the_target_not_in_tmp(tmp_path, monkeypatch):
    # the rename must stay on the target's file system, whatever TMPDIR says
    elsewhere = tmp_path / "tmpdir"
    elsewhere.mkdir()
    monkeypatch.setenv("TMPDIR", str(elsewhere))
    monkeypatch.setattr(tempfile, "tempdir", str(elsewhere))
    target = tmp_path / "folder" / "out.txt"
    target.parent.mkdir()
    seen = []
    with atomic_open(target) as f:
        seen = _leftovers(target.parent)
        f.write("x")
    assert len(seen) == 1 and list(elsewhere.iterdir()) == [] and target.read_text() == "x"


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="no /dev/shm on this system")
def test_a_target_on_another_file_system_is_written_whole(tmp_path):
    folder = Path(tempfile.mkdtemp(dir="/dev/shm"))
    try:
        target = folder / "out.txt"
        target.write_text("old")
        write_atomic(target, "new")
        assert target.read_text() == "new" and _leftovers(folder) == []
    finally:
        for p in folder.iterdir():
            p.unlink()
        folder.rmdir()


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o644, 0o664, 0o755])
def test_a_replaced_file_keeps_its_permissions(tmp_path, mode):
    path = tmp_path / "out.txt"
    path.write_text("old")
    path.chmod(mode)
    write_atomic(path, "new")
    assert stat.S_IMODE(path.stat().st_mode) == mode and path.read_text() == "new"


def test_a_new_file_gets_what_open_would_give_it(tmp_path):
    old = os.umask(0o027)
    try:
        write_atomic(tmp_path / "new.txt", "x")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.txt").stat().st_mode) == 0o640


def test_a_read_only_file_is_refused_even_for_root(tmp_path):
    # a rename could replace it; an ordinary open could not, so the writer refuses too
    path = tmp_path / "ro.txt"
    path.write_text("keep")
    path.chmod(0o444)
    if os.access(path, os.W_OK):  # root: access() says yes, as open() would allow it
        write_atomic(path, "new")
        assert path.read_text() == "new"
    else:
        with pytest.raises(OutputFileError):
            write_atomic(path, "new")
        assert path.read_text() == "keep"


def test_a_symbolic_link_stays_a_link_to_the_new_content(tmp_path):
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    write_atomic(link, "new")
    assert link.is_symlink() and real.read_text() == "new"


# ---- the session file's ranges: both ends of every range, and just outside -------------------


def _ranged(table: dict[str, Field]):
    return [(k, f) for k, f in table.items() if f.lo is not None and f.kind in (int, float)]


RANGED = ([("settings", k, f) for k, f in _ranged(SETTINGS)]
          + [("segment", k, f) for k, f in _ranged(SEGMENT)]
          + [("fs entry", k, f) for k, f in _ranged(FS_ENTRY)])


def _outside(f: Field, end: float, up: bool):
    if f.kind is int:
        return int(end) + (1 if up else -1)
    return math.nextafter(end, math.inf if up else -math.inf)


@pytest.mark.parametrize("where,key,field", RANGED, ids=[f"{w}.{k}" for w, k, _ in RANGED])
def test_every_range_holds_both_its_ends_and_refuses_just_outside(where, key, field):
    table = {key: field}
    for end, is_open in ((field.lo, field.lo_open), (field.hi, field.hi_open)):
        value = field.kind(end)
        if is_open:
            with pytest.raises(ValueError):
                check_record({key: value}, table, where)
        else:
            assert check_record({key: value}, table, where)[key] == value
    for end, up in ((field.lo, False), (field.hi, True)):
        with pytest.raises(ValueError, match=key):
            check_record({key: _outside(field, end, up)}, table, where)


# ---- breakpoints: an event that is the last of its batch --------------------------------------

G = Geometry(user_pages=4096, pages_per_block=32, spare=0.12)


def _batches(seed: int = 7, batch: int = 500, count: int = 40) -> list[Commands]:
    rng = np.random.default_rng(seed)
    lpns = np.concatenate([np.arange(G.user_pages), rng.integers(0, G.user_pages,
                                                                 batch * count)])
    return [Commands.single_page(OP_WRITE, lpns[i:i + batch])
            for i in range(0, lpns.size, batch)]


# the newest among equally empty victims: this seed's batches then hold the edge cases the
# tests below look for (a batch whose last erase or victim sets a new maximum); with the
# oldest (the default) they do not, and the breakpoint logic under test is the same
FTL = FtlConfig(victim_order="newest")


def _drive() -> Drive:
    return Drive(G, FTL, event_capacity=event_capacity_for(G, FTL, 8))


def _log() -> list[np.ndarray]:
    d = _drive()
    return [_run_batch(d, c) for c in _batches()]


def _fire(bp: Breakpoints) -> tuple[int, str]:
    d = _drive()
    watch = BreakpointWatch(bp, d)
    for i, c in enumerate(_batches()):
        hit = watch.after_batch(_run_batch(d, c))
        if hit:
            return i, hit
    raise AssertionError(f"{bp} never fired")


@pytest.mark.parametrize("which", ["first", "last"])
def test_a_gc_breakpoint_on_the_first_or_last_victim_of_a_batch_names_it(which):
    log = _log()
    before = 0
    for i, ev in enumerate(log):  # noqa: B007 - i is the batch found, used below
        victims = ev[ev[:, 0] == EV_VICTIM]
        if len(victims) >= 2 and before > 0:
            break
        before += len(victims)
    n = before + (1 if which == "first" else len(victims))
    victim = victims[0 if which == "first" else -1]
    assert _fire(Breakpoints(gc_count=n)) == (
        i, f"GC number {n:,}: block {int(victim[1]):,}, {int(victim[2])} valid pages")


def test_an_erase_breakpoint_reached_by_the_last_erase_of_a_batch_names_its_block():
    log, top = _log(), 0
    for i, ev in enumerate(log):  # noqa: B007 - i is the batch found, used below
        erases = ev[ev[:, 0] == EV_ERASE]
        if len(erases) and erases[-1, 2] > max(top, int(erases[:-1, 2].max(initial=0))):
            k, block = int(erases[-1, 2]), int(erases[-1, 1])
            break
        top = max(top, int(erases[:, 2].max(initial=0)))
    else:
        raise AssertionError("no batch whose last erase set a new maximum")
    assert _fire(Breakpoints(erases=k)) == (i, f"block {block:,} reached {k:,} erases")


def test_a_victim_breakpoint_on_the_last_victim_of_its_batch_names_it():
    log, best = _log(), -1
    for i, ev in enumerate(log):  # noqa: B007 - i is the batch found, used below
        victims = ev[ev[:, 0] == EV_VICTIM]
        if len(victims) >= 2 and victims[-1, 2] > max(best, victims[:-1, 2].max()):
            k, block = int(victims[-1, 2]), int(victims[-1, 1])
            break
        best = max(best, int(victims[:, 2].max(initial=-1)))
    else:
        raise AssertionError("no batch whose last victim held the most valid pages yet")
    assert _fire(Breakpoints(victim_valid=k)) == (
        i, f"GC victim with at least {k} valid pages: block {block:,} with {k} valid pages")


# ---- the time series' WA: bytes, read-modify-write included, on every row ---------------------


def test_every_series_row_counts_wa_in_bytes_with_read_modify_write():
    from ssdlab.model.lab.scenario import build_machine, parse_scenario, run_scenario
    from ssdlab.model.lab.series import Series

    # 4 KiB requests at sector 63 straddle two 4 KiB pages: each programs 8 KiB for 4 KiB
    scenario = parse_scenario('version = 1\nname = "rmw"\n[drive]\nprofile = '
                              '"intel_x25m_g1_80"\nuser_gib = 0.25\n[partition]\n'
                              'start_sector = 63\n[filesystem]\njournal = false\n'
                              'max_request_kib = 4\n[[steps]]\ndo = "write"\nname = "data"\n'
                              'mb = 16\n', "rmw.toml")
    machine = build_machine(scenario)
    series = Series(machine, 0.05)
    run_scenario(scenario, machine=machine, series=series)
    rows = [r for r in series.as_dicts() if r["device_written_mb"] > 0]
    assert len(rows) >= 3
    for r in rows:
        assert r["wa"] == pytest.approx(r["nand_written_mb"] / r["device_written_mb"],
                                        rel=1e-9)
        assert r["wa"] == pytest.approx(2.0, rel=0.02)  # pages, not requests, are programmed
