"""The host layer places blocks the same way in every process: nothing in it may depend on
Python's per-process string hashing (PYTHONHASHSEED), or the same scenario and seed would
give other writes, TRIMs and WA from one run to the next."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

PLACE = """
from ssdlab.model.flash.drive import Drive
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.host.blockdev import BlockDevice
from ssdlab.model.host.filesystem import ROOT_INO, FileSystem, FsOptions
from ssdlab.model.host.partition import Partition

drive = Drive(Geometry(user_pages=8192, pages_per_block=32, spare=0.1), FtlConfig())
fs = FileSystem(BlockDevice(drive, Partition(2048)),
                FsOptions(blocks_per_group=512, inodes_per_group=64))
dirs = [fs.mkdir(ROOT_INO, f"dir{i}") for i in range(12)]
files = [fs.create(d, "f", 20000) for d in dirs]
fs.sync()
fs.dev.submit()
print([fs.inodes[i].extents for i in dirs + files], drive.counters())
"""


def _placement(hash_seed: str) -> str:
    env = dict(os.environ, PYTHONHASHSEED=hash_seed)
    done = subprocess.run([sys.executable, "-c", PLACE], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_block_placement_does_not_depend_on_the_hash_seed():
    assert _placement("1") == _placement("2") == _placement("12345")
