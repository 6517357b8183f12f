"""The compiled engine: prepared once, found warm or cold without compiling, and a command
that finds it cold says so at once instead of waiting silently."""

import os
import subprocess
import sys

import numpy as np

from ssdlab.model.flash import warm
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.zoned import ZonedDrive, ZoneLayout
from ssdlab.model.flash.zonestore import ZonedStore


def _in_cache(cache_dir, *args, code=None):
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache_dir)}
    cmd = [sys.executable, "-c", code] if code else [sys.executable, "-m", "ssdlab.app.cli.main",
                                                    *args]
    return subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=1800)


def test_every_entry_point_is_called_with_the_one_signature_prepare_compiles():
    # Every way a drive reaches compiled code, on every mapping: if any passed another
    # array type (an int32 page list, a strided slice), numba would compile a second
    # specialisation at run time, which `ssdlab prepare` never prepared.
    for mapping in ("page", "block", "fast"):
        drive = Drive(Geometry(user_pages=512, pages_per_block=16, spare=0.25),
                      FtlConfig(mapping=mapping))
        drive.write_pages(np.arange(512, dtype=np.int32)[::-1])
        drive.write_pages(np.arange(0, 512, 2))
        drive.write(3, 20)
        drive.trim(40, 17)
        drive.read(0, 4)
        drive.collect_one()
        drive.idle_gc(target_free_blocks=40, max_victims=2)
    # the host's store on a zoned drive, collecting its own garbage
    store = ZonedStore(ZonedDrive(ZoneLayout(zones=16, pages_per_block=16)), app_pages=64)
    store.write(np.random.default_rng(1).integers(0, 64, 2000))
    # A callee loaded from its caller's cache shows no signature of its own: none or the one.
    called_from_python = {"run_commands", "run_single_page_writes", "collect", "idle_gc",
                          "store_write_pages"}
    for entry in warm.ENTRY_POINTS:
        seen = warm._dispatcher(entry).signatures
        assert seen == [warm._signature(entry)] or (
            seen == [] and entry.name not in called_from_python), entry.name
    assert warm.is_warm() and warm.missing() == []


def test_an_empty_cache_is_cold_and_asking_compiles_nothing(tmp_path):
    code = "from ssdlab.model.flash import warm; print(' '.join(warm.missing()))"
    done = _in_cache(tmp_path, code=code)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [e.name for e in warm.ENTRY_POINTS]
    assert not list(tmp_path.rglob("*.nbi"))  # only asked, nothing compiled


# A command on a cold engine (it says so, shows each function compiled, and the next command
# finds it warm and silent) is tested from the installed wheel, tests/test_wheel.py, whose
# fresh install is the suite's one cold compile.
