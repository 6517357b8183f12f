"""The model against the phase-by-phase recordings of real ext4 (Linux 6.18): untar with and
without discard, a 1.2 GB untar, and a paced untar (tests/recordings/ext4_untar_* and
ext4_paced_*, made by record_ext4.py; ssdlab/model/lab/ext4phases.py replays them). No root.

Each figure the model holds is asserted within 10 % (or exactly, where both are 0); each it
does not is pinned with its measured size and cause as a known gap, so a change that
closes or widens it shows here.
"""

from __future__ import annotations

import pytest

from ssdlab.model.lab.ext4phases import FIGURES, PHASE_CONFIGS, compare, load

UNTAR, DISCARD, BIG, PACED = PHASE_CONFIGS


def fig(config: str, step: str, name: str):
    for f in compare(config):
        if f.step == step and f.figure == name:
            return f
    raise KeyError((config, step, name))


def test_every_step_has_every_figure():
    for config in PHASE_CONFIGS:
        steps = [s["name"] for s in load(config)["steps"]]
        got = compare(config)
        assert [(f.step, f.figure) for f in got] == [(s, n) for s in steps for n in FIGURES]


# --- writeback timing ----------------------------------------------------------------------


@pytest.mark.parametrize("config", [UNTAR, DISCARD])
def test_untar_writes_nothing_until_sync_with_plenty_of_ram(config):
    """493 MB of dirty data on a 24 GiB host: far under the 2.24 GiB background threshold,
    and tar ends long before the 30 s expiry. Real and model write nothing, not even a
    journal commit."""
    for name in ("command_mb", "data_from_s"):
        f = fig(config, "untar", name)
        assert f.kernel == 0 and f.model == 0, f


@pytest.mark.parametrize("config", [UNTAR, DISCARD, BIG])
def test_sync_after_untar_within_5_percent(config):
    f = fig(config, "untar", "sync_mb")
    assert abs(f.ratio - 1) <= 0.05, f


def test_paced_untar_data_waits_for_the_30_s_expiry():
    """Written over 60 s: the first file data goes out at the first flusher pass after
    the first file is 30 s old (kernel 30.7 s, model 30.9 s), and meanwhile a journal
    commit every 5 s (12 kernel, 13 model)."""
    start = fig(PACED, "paced unpack", "data_from_s")
    assert 30 <= start.kernel <= 36 and 30 <= start.model <= 36
    assert abs(start.ratio - 1) <= 0.05, start
    commits = fig(PACED, "paced unpack", "commits")
    assert abs(commits.ratio - 1) <= 0.10, commits
    journal = fig(PACED, "paced unpack", "journal_mb")
    assert abs(journal.ratio - 1) <= 0.05, journal


def test_paced_untar_split_between_command_and_sync():
    """The flusher wakes every 5.12 s, not 5 (the timer wheel's step, writeback.py): in the
    kernel at 30.7, 35.8 ... 56.3 s, six passes before the command ended at 60.08 s. With
    a 5 s period the model made a seventh at 60.0 s and wrote 14 % too much during the
    command and 11 % too little in the sync; now both within 2 %."""
    command = fig(PACED, "paced unpack", "command_mb")
    sync = fig(PACED, "paced unpack", "sync_mb")
    assert abs(command.ratio - 1) <= 0.05, command
    assert abs(sync.ratio - 1) <= 0.05, sync


def test_limitation_big_untar_background_writeback_before_the_threshold():
    """Known gap: during the 1.2 GB untar the kernel started background writeback at 3.9 s
    (reason=background in the trace) with about 0.6 GB dirty, well under 10 % of the
    available RAM (2.24 GB), and wrote 82 MB of file data. The kernel also gives each device
    a share of the background threshold in proportion to its share of recent writeback
    (wb_calc_thresh), and a loop device shares it with the disk holding its file, which
    writes every byte again. The model has one device and the global threshold, so it
    writes no file data before sync; its first home write in the command is the journal
    checkpoint after the third early commit (6.4 s), which the kernel put off until the
    sync. So the command writes 111 MB against 148.5 (0.75); command plus sync agree within
    1 %."""
    f = fig(BIG, "untar", "data_from_s")
    assert 3 <= f.kernel <= 5 and 5 < f.model < 7.2
    command = fig(BIG, "untar", "command_mb")
    sync = fig(BIG, "untar", "sync_mb")
    assert 0.65 <= command.ratio <= 0.85, command
    assert abs((command.model + sync.model) / (command.kernel + sync.kernel) - 1) <= 0.01


# --- journal ---------------------------------------------------------------------------------


@pytest.mark.parametrize("config", [UNTAR, DISCARD, BIG, PACED])
def test_journal_of_rm_rf(config):
    """Within 5 %, the 1.2 GB tree's within 10 % (+6.4 %: below)."""
    f = fig(config, "rm -rf", "journal_mb")
    assert abs(f.ratio - 1) <= (0.10 if config == BIG else 0.05), f
    f = fig(config, "rm -rf", "sync_mb")
    assert abs(f.ratio - 1) <= 0.05, f


def test_big_rm_rf_commits_on_the_timer():
    """rm -rf of 92,000 files after dropping the page cache took 13.7 s (the replay lasts
    as long): two 5 s commits during it and one in the sync, real and model."""
    f = fig(BIG, "rm -rf", "commits")
    assert f.kernel == f.model == 3, f


def test_limitation_big_rm_rf_first_transaction():
    """Known gap: the kernel's first 5 s transaction of the rm -rf held 1,789 blocks, the
    model's 2,508 (then 2,724 and 1,822 against 2,536 and 1,694). The kernel read the
    directories back from the drive after the cache drop and deleted slowly at first; the
    model spreads the deletes evenly over the recorded 13.7 s, and deletes in hash order,
    touching inode-table blocks in no particular order, as the kernel does. So the command
    writes 20.8 MB against 18.6 (+12 %), the sync 0.985 of the kernel's."""
    f = fig(BIG, "rm -rf", "command_mb")
    assert 1.05 <= f.ratio <= 1.2, f


@pytest.mark.parametrize("config", [UNTAR, DISCARD, BIG])
def test_journal_of_untar_within_5_percent(config):
    """The untar's transaction commits as soon as sync starts writing back: the credits
    each file's writepages reserves for its extent conversion push it past jbd2's limit
    (journal.py). The metadata that allocation then dirties again (inode-table blocks,
    bitmaps, descriptors) is journaled a second time: 28.5 MB in 2 commits (4,620 and
    2,301 blocks; model 4,611 and 2,299). The 1.2 GB untar commits at 5,392 blocks while tar
    runs and at about 2,680 while sync writes back, kernel and model alike: 95 MB."""
    f = fig(config, "untar", "journal_mb")
    assert abs(f.ratio - 1) <= 0.05, f


@pytest.mark.parametrize("config", [UNTAR, DISCARD])
def test_untar_sync_commits_twice(config):
    f = fig(config, "untar", "commits")
    assert f.kernel == f.model == 2, f


def test_limitation_big_untar_last_commit():
    """Known gap, one commit of 5 blocks: the kernel's sync committed 7 times, the model 6.
    The last kernel commit holds what the extent conversions of the last writes dirtied
    after sync's first commit request; whether one is left depends on when those I/Os
    complete (the 493 MB untar's recordings have none, a re-run of it had one of 10 blocks),
    so the model does not model it."""
    f = fig(BIG, "untar", "commits")
    assert f.model == f.kernel - 1 == 6, f


# --- discard and fstrim ----------------------------------------------------------------------


def test_modern_discard_covers_the_free_runs():
    """After rm -rf with -o discard: the distinct area discarded (the tree and the free
    space up to its runs' ends) and what each request covers on average (59 MB: from a
    freed extent to the end of its free run).

    Pinned at +14 % and +15 % since the allocator places file data from the second group
    of a flex group, as ext4 does (ssdlab/model/host/orlov.py; group 0 kept for directories in
    tests/recordings/ext4_rounds_*.json and ext4_repo_*.json): the tree's free runs now end
    at one more group boundary than before (637 MB, -6 %, with data next to the root
    directory). This recording has no per-group free counts to say where the kernel put
    the tree."""
    distinct = fig(DISCARD, "rm -rf", "discard_distinct_mb")
    assert abs(distinct.ratio - 1) <= 0.16, distinct
    assert distinct.kernel > load(DISCARD)["tree"]["bytes"] / 1e6
    mb, n = fig(DISCARD, "rm -rf", "discard_mb"), fig(DISCARD, "rm -rf", "discard_requests")
    assert abs((mb.model / n.model) / (mb.kernel / n.kernel) - 1) <= 0.17


def test_modern_discard_request_count_and_summed_bytes():
    """After rm -rf with -o discard the kernel sent 6,758 discards covering 401 GB in sum
    (676 MB distinct): one per freed-extent entry, each to the end of its free run. Since
    Linux 6.17 a freed extent merges only with the node its tree descent ends at, and rm -rf
    frees in hash order, so adjacent files mostly stay separate entries (discard.py). The
    model: 6,579 requests (-2.6 %), 434 GB (+8.1 %)."""
    n = fig(DISCARD, "rm -rf", "discard_requests")
    assert abs(n.ratio - 1) <= 0.10, n
    mb = fig(DISCARD, "rm -rf", "discard_mb")
    assert abs(mb.ratio - 1) <= 0.10, mb
    assert mb.kernel > 100 * 2**30 / 1e6


def test_discard_waits_for_no_sync():
    """The kernel's discard worker ran on after sync returned: most discards fall in the
    seconds after it (the recorder waits until the device is quiet)."""
    after = load(DISCARD)["steps"][1]["phases"]
    assert after["after"]["discard"] > after["sync"]["discard"] > 0


@pytest.mark.parametrize("config", [UNTAR, DISCARD, BIG])
def test_fstrim_within_10_percent(config):
    f = fig(config, "fstrim", "fstrim_mb")
    assert abs(f.ratio - 1) <= 0.10, f
    assert fig(config, "fstrim", "discard_mb").kernel == f.kernel


@pytest.mark.parametrize("config", PHASE_CONFIGS)
def test_recordings_are_complete_and_agree_with_their_counter(config):
    """Nothing lost from the trace buffer, and per phase the traced write bytes are what
    ext4's lifetime_write_kbytes counted; the journal's writes lie in its recorded range."""
    rec = load(config)
    assert rec["format"] == 2 and rec["kernel"].startswith("6.18")
    first, end = rec["journal_sectors"]
    assert end - first == 16384 * 8  # mke2fs's 64 MiB journal for 2-4 GiB
    for step in rec["steps"]:
        assert step["trace_lost"] == 0
        for phase in step["phases"].values():
            assert phase["write_bytes"] == phase["lifetime_write_kbytes"] * 1024
            assert phase["journal_bytes"] <= phase["write_bytes"]
