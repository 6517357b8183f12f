"""The model against the committed real-ext4 recordings of the workloads people run
(tests/recordings/ext4_repo_*.json, ext4_rounds_*.json; ssdlab/model/lab/ext4rounds.py replays
them). No root needed: only the committed files are read.

Measured when these tests were written (Linux 6.18, loop device): every step that wrote a
MiB or more is within 10 % of the kernel, except make, whose output the kernel wrote back
during the command while the model (no file dirty for 30 s yet) writes it at the sync:
make and its sync together are within 10 %. fstrim bytes agree within 1 %. With -o discard
the 6.18 kernel issues its discards from a worker after the commit, one at a time; a refill
started right after the delete's sync reuses freed blocks first, and the worker trims around
them: it discarded 26 to 68 % of the bytes a round freed. Given 20 s first
(rounds_discard_idle), it discarded 0.90 to 1.10 times the freed bytes (distinct space), and
the model's modern-kernel discard (the free run around each freed extent;
ssdlab/model/host/discard.py) 0.89 to 0.94 of what it did. The model's worker runs in time at the
loop device's pace (ssdlab/model/lab/ext4rounds.py) and races the refill the same way.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from ssdlab.model.lab.ext4rounds import (
    ROUND_CONFIGS,
    load_round_recording,
    replay_rounds,
    round_discards,
)

RECORDINGS = Path(__file__).parent / "recordings"
REPO = ("repo_relatime", "repo_strictatime", "repo_relatime_traced")
ROUNDS = ("rounds_discard", "rounds_discard_idle", "rounds_fstrim")


def rows(config: str):
    return replay_rounds(config)


def test_recordings_are_small():
    files = [p for c in ROUND_CONFIGS for p in RECORDINGS.glob(f"ext4_{c}.*")]
    assert len(files) == 2 * len(ROUND_CONFIGS)
    assert sum(p.stat().st_size for p in files) < 5_000_000


@pytest.mark.parametrize("config", ROUND_CONFIGS)
def test_steps_that_write_a_mib_are_within_10_percent(config):
    for r in rows(config):
        if r.step == "make" or r.real_kib < 1024:
            continue
        if config in REPO and r.index == 3:  # the sync after make: see the tests below
            continue
        assert abs(r.ratio - 1) <= 0.10, (r.index, r.step, r.real_kib, r.model_kib)


@pytest.mark.parametrize("config", REPO)
def test_make_and_its_sync_together_within_10_percent(config):
    r = rows(config)
    assert [r[2].step, r[3].step] == ["make", "sync"]
    real = r[2].real_kib + r[3].real_kib
    model = r[2].model_kib + r[3].model_kib
    assert abs(model / real - 1) <= 0.10, (real, model)


@pytest.mark.parametrize("config", REPO[:2])
def test_limitation_make_output_written_early(config):
    """Known gap: in these two recordings the kernel had written most of make's output
    before the command ended (writes 8 to 29 s into a 29 s build, before any file was
    30 s dirty), the model writes it at the sync. They have no writeback events to say
    why; repo_relatime_traced, the same build recorded again with them, shows only the
    flusher's periodic passes writing files 30 s dirty (next test)."""
    r = rows(config)
    real = r[2].real_kib + r[3].real_kib
    model = r[2].model_kib + r[3].model_kib
    assert r[2].real_kib > 0.7 * real and r[2].model_kib < 0.5 * model


def _events(config: str, step: str) -> list[str]:
    lines, current = [], None
    with gzip.open(RECORDINGS / f"ext4_{config}.trace.gz", "rt") as f:
        for line in f:
            if line.startswith("# step: "):
                current = line[8:].strip()
            elif current == step and "block_rq_issue" not in line:
                lines.append(line)
    return lines


def test_make_output_waits_for_the_30_s_expiry_when_traced():
    """Recorded again with the writeback events (the machine was busy: make took 100 s):
    every flusher pass during make was periodic (reason=periodic, kupdate), none for the
    background threshold, so make's files went out 30 s after they were written, as in
    the model. The split still differs (make 0.85, its sync 1.37 of the kernel's; together
    0.99): the replay spreads make's writes evenly over the 100 s, the real build did not."""
    reasons = {line.split("reason=")[1].split()[0]
               for line in _events("repo_relatime_traced", "make") if "writeback_start" in line}
    assert reasons == {"periodic"}
    make, sync = rows("repo_relatime_traced")[2:4]
    assert 0.8 <= make.ratio <= 0.9, make
    assert 1.25 <= sync.ratio <= 1.45, sync


@pytest.mark.parametrize("config", REPO)
def test_git_clone_writes_the_fsynced_pack_during_the_command(config):
    rec = load_round_recording(config)
    clone = rows(config)[0]
    assert clone.step == "git clone"
    assert clone.real_kib * 1024 >= rec["pack_bytes"]
    assert abs(clone.ratio - 1) <= 0.05
    assert 0.2 <= rec["pack_ratio"] <= 0.35  # one commit of C sources: about a quarter


@pytest.mark.parametrize("config", ROUND_CONFIGS)
def test_umount_writes_what_the_kernel_writes(config):
    last = rows(config)[-1]
    assert last.step == "umount"
    assert abs(last.ratio - 1) <= 0.10, (last.real_kib, last.model_kib)


def test_fstrim_trims_what_the_kernel_trims():
    steps = [r for r in rows("rounds_fstrim") if r.step == "fstrim"]
    assert len(steps) == 4
    for r in steps:
        assert abs(r.model_fstrim_bytes / r.real_fstrim_bytes - 1) <= 0.02, r
    # the first fstrim after the first fill skipped group 0, which nothing had freed into
    # since the fstrim of the fresh file system: the kernel and the model alike
    first_fill_free = rows("rounds_fstrim")[5]
    assert first_fill_free.step == "sync"
    assert steps[1].real_fstrim_bytes < steps[2].real_fstrim_bytes


@pytest.mark.parametrize("config", ROUNDS)
def test_the_model_needs_the_files_the_kernel_needed_to_reach_the_level(config):
    fills = [r for r in rows(config) if r.real_files is not None]
    assert len(fills) == 4
    for r in fills:
        assert abs(r.model_files - r.real_files) <= max(2, 0.02 * r.real_files), r


@pytest.mark.parametrize("config", ROUNDS)
def test_first_fill_leaves_group_0_to_the_directories(config):
    rec = load_round_recording(config)
    fill_sync = next(i for i, s in enumerate(rec["steps"]) if s["name"] == "sync"
                     and rec["steps"][i - 1]["name"] == "fill")
    real = rec["steps"][fill_sync]["group_free_blocks"]
    assert real[0] > 0.8 * 32768 and max(real[1:6]) < 0.05 * 32768
    assert rows(config)[fill_sync].group_diff_pct <= 10


def test_discard_with_time_to_finish_matches_the_freed_bytes():
    for _, real, _, model in round_discards("rounds_discard_idle"):
        assert abs(real / model - 1) <= 0.12, (real, model)


def test_discard_worker_races_the_refill():
    """Without the wait the refill takes freed blocks before the discard worker reaches
    them, and the worker trims around them. Rounds 1 and 3: the model's worker, at the
    loop device's pace, discards what the kernel did within 10 %. Round 2: the kernel's
    worker ran at about a third of its usual pace all round (72 requests/s against 320;
    ext4_rounds_discard.trace.gz), so the refill took more before it got there; the model
    discards 2 to 2.6 times what it did."""
    rounds = round_discards("rounds_discard")
    for k in (0, 2):
        _, real, _, model = rounds[k]
        assert abs(model / real - 1) <= 0.10, (k + 1, real, model)
    _, real, _, model = rounds[1]
    assert 2.0 <= model / real <= 2.6, (real, model)
    # with the same deletes and 20 s of idle, the model discards far more: the race matters
    idle = round_discards("rounds_discard_idle")
    assert sum(r[3] for r in rounds) < 0.8 * sum(i[3] for i in idle)
