"""Probe (root; not a test): which jbd2 handles an untar and its sync start, with how many
credits, and when each transaction commits. It made probe_jbd2_credits.txt, the source of
the handle credits in ssdlab/model/host/journal.py.

Like record_ext4.py's untar plan (2 GiB image on a loop device, the scale-1 kernel tree as a
tar archive, relatime), with the tracefs events block_rq_issue, jbd2_handle_start,
jbd2_handle_stats, jbd2_start_commit, jbd2_run_stats, jbd2_checkpoint, writeback_start and
ext4_sync_fs (with a stack trace). Everything is undone on the way out, even after an error.

    sudo .venv/bin/python tests/recordings/probe_jbd2_credits.py [SCALE] [-f|all] [GIB] [OUT]
"""
import gzip
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import loophost as h  # noqa: E402
import record_ext4 as r  # noqa: E402
from ext4trace import TRACEFS, run  # noqa: E402

from ssdlab.model.host.filetree import kernel_tree  # noqa: E402

SCALE = float(sys.argv[1]) if len(sys.argv) > 1 else 1.0
SYNC = sys.argv[2] if len(sys.argv) > 2 else "-f"
IMG = int(sys.argv[3]) if len(sys.argv) > 3 else 2
OUT = Path(sys.argv[4] if len(sys.argv) > 4 else '/tmp/probe_jbd2_credits.trace.gz')
T = TRACEFS
work = Path(tempfile.mkdtemp(prefix='ssdlab_probe_', dir='/tmp'))
image, mnt = work / 'ext4.img', work / 'mnt'
loop = ''
mounted = False
inst = None
events = {"block/block_rq_issue": "dev == {dev}", "jbd2/jbd2_run_stats": "dev == {dev}",
          "jbd2/jbd2_start_commit": "dev == {dev}", "ext4/ext4_sync_fs": "dev == {dev}",
          "jbd2/jbd2_handle_start": "dev == {dev}", "jbd2/jbd2_handle_stats": "dev == {dev}",
          "writeback/writeback_start": 'name == "{major}:{minor}"',
          "jbd2/jbd2_checkpoint": "dev == {dev}"}
try:
    mnt.mkdir()
    with open(image, 'wb') as f:
        f.truncate(IMG << 30)
    loop = run('losetup', '-f', '--show', str(image)).strip()
    disk = Path(loop).name
    major, minor = (int(x) for x in Path(f'/sys/block/{disk}/dev').read_text().split(':'))
    run(*r.MKFS_BASE, loop)
    run('mount', '-t', 'ext4', '-o', 'relatime', loop, str(mnt))
    mounted = True
    tree = kernel_tree(SCALE, r.SEED)
    archive = work / 'linux.tar'
    r.write_archive(archive, tree, r.Payload())
    h.read_file(archive)
    (mnt / 'linux').mkdir()
    h.syncfs(mnt)
    time.sleep(6)
    inst = T / 'instances' / f'ssdlab_probe_{os.getpid()}'
    inst.mkdir()
    (inst / 'buffer_size_kb').write_text('262144\n')
    (inst / 'trace_clock').write_text('mono\n')
    dev = (major << 20) | minor
    for ev, cond in events.items():
        p = inst / 'events' / ev
        (p / 'filter').write_text(cond.format(dev=dev, major=major, minor=minor) + '\n')
        (p / 'enable').write_text('1\n')
    (inst / 'events/ext4/ext4_sync_fs/trigger').write_text('stacktrace\n')
    (inst / 'tracing_on').write_text('1\n')
    t0 = time.monotonic()
    run('tar', '-xf', str(archive), '-C', str(mnt / 'linux'))
    t1 = time.monotonic()
    if SYNC == '-f':
        run('sync', '-f', str(mnt))
    else:
        run('sync')
    t2 = time.monotonic()
    h.wait_quiet(disk)
    text = (inst / 'trace').read_text()
    with gzip.open(OUT, 'wt') as f:
        f.write(f'# t0 {t0} tar_end {t1} sync_end {t2}\n' + text)
    print('t0', t0, 'tar', t1 - t0, 'sync', t2 - t1)
finally:
    if inst is not None:
        (inst / 'tracing_on').write_text('0\n')
        try:
            (inst / 'events/ext4/ext4_sync_fs/trigger').write_text('!stacktrace\n')
        except OSError:
            pass
        for ev in events:
            (inst / 'events' / ev / 'enable').write_text('0\n')
        inst.rmdir()
    if mounted:
        subprocess.run(['umount', str(mnt)], check=False)
    if loop:
        subprocess.run(['losetup', '-d', loop], check=False)
    shutil.rmtree(work, ignore_errors=True)
