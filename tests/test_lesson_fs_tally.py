"""A lesson's file-system drive has its tally beside the map, and the tally tells the story
the lesson's figures tell: it adds up the run's steps, as the steps' figures and charts
do. A step's untimed preparation (the test file random writes prepare, as sysbench's
prepare does) is in no step's figures, so not in the tally either: counted, lesson 14's
drives read WA 1.195 and 1.223 where their steps add up to 1.266 and 1.303, and their
tallies had been hidden for it."""

from __future__ import annotations

import pytest

from ssdlab.app.gui.lessons.lessonrun import host_bytes_fields
from ssdlab.lessons.catalogue import bundled
from ssdlab.model.lab.scenario import build_machine, run_scenario

MB = 1e6


def idle_configs():
    lesson = next(x for x in bundled() if x.id == "idle-time")
    return lesson.step_of("idle").configs


@pytest.mark.parametrize("config", idle_configs(), ids=lambda c: c.id)
def test_a_file_systems_tally_adds_up_its_steps(config):
    machine = build_machine(config.scenario)
    steps = run_scenario(config.scenario, machine=machine)
    page = machine.drive.geometry.page_bytes
    host_mb = sum(s.device_written_mb for s in steps)
    nand_mb = sum(s.nand_written_mb for s in steps)
    # the preparation is real writing, counted by the drive and the machine's totals ...
    assert machine.io_stats.write_bytes > host_mb * MB + page
    # ... and in none of the steps: the steps' sums are the machine's step totals
    counted = machine.steps_stats
    assert counted.write_bytes == pytest.approx(host_mb * MB, abs=1)
    assert counted.nand_writes * page == pytest.approx(nand_mb * MB, abs=1)
    assert counted.gc_copies == sum(s.gc_copies for s in steps)
    # the tally's figures (ssdlab/app/gui/drive/tally.py shows the WA to 3 decimals)
    fields = host_bytes_fields(machine.drive, machine)
    assert f"{fields['wa']:.3f}" == f"{nand_mb / host_mb:.3f}"
    assert round(fields["tally_counts"]["host_writes"]) == round(host_mb * MB / page)
    assert fields["tally_counts"]["gc_copies"] == counted.gc_copies


def test_a_step_running_counts_in_the_step_totals():
    """Midway through a step (the map's live snapshots), its writes so far are counted."""
    config = idle_configs()[0]
    machine = build_machine(config.scenario)
    seen = []
    steps = run_scenario(config.scenario, machine=machine, every_s=0.0,
                 progress=lambda i, *_: seen.append((i, machine.steps_stats.write_bytes)))
    # the random writes (step 4) send their writes as they go; what they prepared first
    # (their test file, written before the step began) is not among them
    before = sum(s.device_written_mb for s in steps[:3]) * MB
    during = [b for i, b in seen if i == 3]
    assert during and before < during[-1] <= before + steps[3].device_written_mb * MB
    assert all(a <= b for a, b in zip(during, during[1:], strict=False))
