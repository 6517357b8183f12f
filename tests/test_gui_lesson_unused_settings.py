"""During a lesson the control panel shows the settings its run uses, for the configuration
shown; a setting the run varies that this configuration does not use is not among them.
Lesson 13 rewrites drive A evenly and drive B with 90 % of its writes on a tenth of its
pages: drive A's panel read "Hot LBAs 20 %, Hot writes 80 %" (the workload's defaults,
which an even workload never reads) as if it had a hot set."""

from __future__ import annotations

from ssdlab.app.gui.lessons.lessonfocus import used_settings
from ssdlab.app.gui.settings.controls import Controls
from ssdlab.lessons.catalogue import bundled

HOT = ("hot_lba_pct", "hot_write_pct")


def test_drive_a_of_lesson_13_shows_no_hot_set(qtbot):
    lesson = next(x for x in bundled() if x.id == "endurance")
    run = lesson.step_of("wear")
    shown, used = used_settings(run)
    assert set(HOT) <= used  # the run varies them: drive B has a hot set
    controls = Controls(lambda *_: True)
    qtbot.addWidget(controls)
    controls.show()
    seen = {}
    for config, settings in zip(run.configs, shown, strict=True):
        controls.show_settings(settings, "", "")
        controls.set_lesson(used)
        work = controls.widgets["workload"]
        seen[config.id] = (work.currentData(), work.isVisibleTo(controls),
                           {n: controls.widgets[n].isVisibleTo(controls) for n in HOT},
                           {n: controls.widgets[n].value() for n in HOT})
    kind, workload_shown, hot_shown, _ = seen["even"]
    assert kind == "random" and workload_shown  # what drive A does: it writes anywhere
    assert not any(hot_shown.values()), seen["even"]
    kind, workload_shown, hot_shown, values = seen["skewed"]
    assert kind == "hotcold" and workload_shown and all(hot_shown.values()), seen["skewed"]
    assert values == {"hot_lba_pct": 10.0, "hot_write_pct": 90.0}
    controls.set_lesson(None)  # the workbench's panel again: its fields as its workload has
    assert controls.widgets["workload"].isVisibleTo(controls)
