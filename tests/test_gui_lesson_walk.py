"""One walk, in one window, through every bundled lesson, checks two things (issue 35).

What is shown is the step's own. At every step, each figure on screen belongs to the run and
the configuration the step is about. The line over the map names it; the map is that drive
as its run ended (maps A and B, each titled, for a run of two side by side, each with its
tally headed by its letter, issue 36); the tally counts that drive, says in words what it
counts (since the drive was new, where the lesson's figures count only the measured part;
a file system's steps added up, as its figures are, lesson 14's two side by side too)
and keeps its WA back while a quiz asks for one; the control panel shows that
configuration's settings and names it; the results are the step's own run's. Where a step
names one configuration (a prediction's measure, the prediction a reflection answers, a
quiz's measure) that is the one shown; where its run has several, "Drive shown" offers
each, by keyboard too, and the map, tally, controls and heading follow the choice.

The runs are the lessons' own, played in the window at full speed (each takes a few seconds;
GCs at teaching pace are tests/test_gui_lesson_watch.py's), the documented experiments come
from the rows cache, and one window plays all eighteen. Waits on conditions, never on time.
Every mismatch is collected, so one run names them all.

Nothing on screen gives a question away. Each lesson is walked from the lessons' first page
on (ssdlab/app/devtools/giveawaywalk.py), and at every step everything the window shows is
read (ssdlab/app/devtools/screentext.py: every shown widget's words, accessible names and
descriptions, tooltips, the window's title, chart titles, axes and ticks, the glossary
definitions a shown text links). Once the lesson's runs are done, each prediction's and
quiz's answer is known, and no text read before it was answered may state it
(ssdlab/lessons/giveaway.py): the figure the step measures as a student would see it rounded
(38.9, 39, 0.389 for 38.89 %), a number the quiz would accept, the right choice's words, or
an axis of the prediction's own figure (where it starts and ends says where the answer
lies).
"""

from __future__ import annotations

import math
import re
from dataclasses import replace

import pytest
import test_gui_lessons
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit

from ssdlab.app.gui.lessons.lessonfocus import config_settings
from ssdlab.app.gui.lessons.lessonshown import COUNTED_BLOCK, COUNTED_STEPS
from ssdlab.lessons.catalogue import bundled
from ssdlab.lessons.charts import predictions_about
from ssdlab.lessons.figures import evaluate
from ssdlab.lessons.runquiz import number

# the lesson tests' window (1024 x 768, its own progress folder, GCs at full speed)
bench, progress_dir = test_gui_lessons.bench, test_gui_lessons.progress_dir
HANG = test_gui_lessons.HANG
TAGS = ("A", "B")
# A prediction's answer said otherwise than in its choice's words, found by reading each
# lesson as a student: lesson 14's title ("work moved, not removed"), its summary and the
# glossary's "background garbage collection" said the outcome of both its questions; the
# glossary's cost-benefit and discard, linked before lesson 3's and lesson 4's questions,
# and lesson 3's step on write frontiers (its text and its picture's words) said theirs.
IN_OTHER_WORDS = {
    "idle-time": {"total": ("moved, not removed", "same flash writes, made earlier",
                            "neither makes the work go away"),
                  "faster": ("make the next moment faster",)},
    "gc-policies": {"best": ("does well when some data is rewritten far more often",),
                    "frontier-cb": ("blocks of copies stay full and are rarely chosen",
                                    "the block of copies is still full and left alone")},
    "trim": {"modern-sync": ("a background worker sends them after the commit",
                             "sync does not wait")},
}


def named_config(lesson, play, step) -> tuple[str | None, str | None]:
    """(run id, configuration id) the step names itself: a prediction's or quiz's measure
    (for "which configuration wins", the answer chosen), the prediction a reflection
    answers; (run id, None) for a run or compare step, whose configurations are all its."""
    if step.kind == "run":
        return step.id, None
    if step.kind == "compare":
        return step.run, None
    if step.kind == "reflect":
        step = lesson.step_of(step.predict)
    measure = getattr(step, "measure", None)
    if measure is None:
        return None, None
    if measure.config == "*":
        answer = play.answers.get(step.id)
        return measure.run, None if answer is None else step.choices[int(answer)].config
    return measure.run, measure.config


def widget_value(w):
    if isinstance(w, QComboBox):
        return w.currentData()
    if isinstance(w, QCheckBox):
        return w.isChecked()
    if isinstance(w, QLineEdit):
        return w.text()
    return w.value()


def settings_differ(controls, settings) -> list[str]:
    """The control panel's shown fields whose value is not the settings' own."""
    out = []
    for name, w in controls.widgets.items():
        if name == "partition_custom" or not w.isVisibleTo(controls):
            continue
        want, got = getattr(settings, name), widget_value(w)
        # a spin box shows the value to its own number of decimals, rounded its way
        near = 0.5 * 10 ** -w.decimals() + 1e-9 if hasattr(w, "decimals") else 0.0
        if isinstance(w, QCheckBox):
            want = bool(want)
        if got != want and not (isinstance(got, float) and abs(got - want) <= near):
            out.append(f"{name} shows {got!r}, the configuration has {want!r}")
    return out


def since_new_wa(config, result) -> float:
    """The WA the tally counts for a configuration's drive, from the run's own figures:
    a bare drive's since it was new (the fill included), a file system's over all steps."""
    f = result.figures
    if config.spec is not None:
        return f["lifetime_wa"]
    n = len(config.scenario.steps)
    return (sum(f[f"steps[{i}].nand_written_mb"] for i in range(n))
            / sum(f[f"steps[{i}].device_written_mb"] for i in range(n)))


def steps_host_pages(config, result) -> int:
    """The pages' worth of bytes a file system's run sent the drive in all its steps (the
    lesson's figures in MB of 10^6 bytes; what a step prepares untimed is in none)."""
    page = config_settings(config).page_kib * 1024
    mb = sum(result.figures[f"steps[{i}].device_written_mb"]
             for i in range(len(config.scenario.steps)))
    return round(mb * 1e6 / page)


def check_step(w, where: str, expect: str | None = None) -> list[str]:
    """What is wrong on screen now, each a sentence naming where; expect: the id of the
    configuration that must be shown (None: the one the control panel names)."""
    panel, controls = w.lesson_panel, w.controls
    lesson, play, step = panel.lesson, panel.play, panel.step
    bad = []
    rid, cid = named_config(lesson, play, step)
    runs = [s for s in lesson.steps if s.kind == "run"]
    heading = w.progress_label.text()
    note = re.search("\u201c(.*)\u201d", controls.lesson_note.text())
    if note is not None:
        named = note.group(1)
    else:  # said nowhere but maybe over the map: the other checks go on with that one
        bad.append(f"{where}: the control panel does not name the configuration it shows "
                   f"({controls.lesson_note.text()!r})")
        labels = sorted((c.label for r in runs for c in r.configs if c.label in heading),
                        key=len)
        named = labels[-1] if labels else ""
    tag = named[:3] if named[:3] in ("A: ", "B: ") else ""
    found = [(r, c) for r in runs for c in r.configs if c.label == named[len(tag):]]
    if rid is not None:
        found = [(r, c) for r, c in found if r.id == rid] or found
    if not found:
        return bad + [f"{where}: shows {named!r}, no configuration of the lesson's runs"]
    run, config = found[0]
    want = expect or cid
    if rid is not None and run.id != rid:
        bad.append(f"{where}: shows run {run.id!r}, the step is about {rid!r}")
    if want is not None and config.id != want:
        bad.append(f"{where}: shows {config.id!r} ({named}), the step is about {want!r}")
    own = config_settings(config)
    bad += [f"{where}: {x}" for x in settings_differ(controls, own)]
    # a setting the run varies but this configuration does not use is not shown as its
    # own (lesson 13's even rewrites read "Hot LBAs 20 %", a default no even run reads)
    if own.workload != "hotcold":
        bad += [f"{where}: shows {n} for a {own.workload!r} workload, which has no hot set"
                for n in ("hot_lba_pct", "hot_write_pct")
                if controls.widgets[n].isVisibleTo(controls)]
    choice = getattr(panel, "drive_choice", None)
    if rid is not None and len(run.configs) > 1:
        if choice is None or not choice.isVisibleTo(panel):
            bad.append(f"{where}: no way to choose among the run's {len(run.configs)} drives")
        elif choice.box.currentText() != named:
            bad.append(f"{where}: Drive shown says {choice.box.currentText()!r}, the panel "
                       f"{named!r}")
    if not run.blockmap:
        return bad
    if named not in heading:
        bad.append(f"{where}: the line over the map ({heading!r}) does not name {named!r}")
    results = play.runs.get(run.id)
    paired = len(w.views) > 1
    pairs = list(zip(w.views, run.configs, strict=False)) if paired else \
        [(w.views[0], config)]
    for v, c in pairs:
        snap = v.blockmap.snapshot
        if paired and v.title.text() != f"{TAGS[w.views.index(v)]}: {c.label}":
            bad.append(f"{where}: map title {v.title.text()!r}, its drive {c.label!r}")
        if results is None:
            if snap is not None:
                bad.append(f"{where}: a drive on the map before its run ({c.id})")
            continue
        blocks = config_settings(c).geometry().blocks
        if snap is None or snap.blocks != blocks:
            bad.append(f"{where}: the map shows a drive of {snap and snap.blocks} blocks, "
                       f"{c.id}'s has {blocks}")
    if results is None:
        return bad
    # each drive on screen has its tally: with a pair both, each headed by its map's letter
    # and counting its own drive (issue 36: B's tally was hidden); else the one shown
    for v, c in pairs:
        i = [x.id for x in run.configs].index(c.id)
        letter = TAGS[w.views.index(v)] if paired else ""
        bad += check_tally(v.tally, f"{where} ({c.id})" if paired else where, c, letter,
                           results[i], step, play)
    return bad


def check_tally(tally, where: str, config, letter: str, result, step, play) -> list[str]:
    """What is wrong with a tally showing the drive of `config` as its run ended (letter:
    the heading it must have, "" for none)."""
    bad = []
    if not tally.isVisible():
        return [f"{where}: no tally for this drive"]
    if tally.tag.text() != letter or tally.tag.isVisible() != bool(letter):
        bad.append(f"{where}: the tally is headed {tally.tag.text()!r}, its map {letter!r}")
    words = COUNTED_BLOCK[0] if config.spec is not None else COUNTED_STEPS[0]
    if getattr(tally, "counted", None) is None or tally.counted.text() != words \
            or not tally.counted.isVisibleTo(tally):
        bad.append(f"{where}: the tally does not say what it counts ({words!r})")
    life = since_new_wa(config, result)
    shown = tally.figure("wa")
    quiz = step.kind == "quiz" and step.measure is not None
    if shown == "?" and not quiz:
        bad.append(f"{where}: the tally keeps its WA back, and no quiz asks for it")
    elif shown not in ("?", f"{life:.3f}"):
        counted = "since new" if config.spec is not None else "steps together"
        bad.append(f"{where}: the tally's WA {shown}, {config.id}'s {counted} {life:.3f}")
    if config.spec is None:  # a file system's host pages: its steps' bytes, added up
        pages = steps_host_pages(config, result)
        if tally.figure("host") != f"{pages:,}":
            bad.append(f"{where}: the tally's host pages {tally.figure('host')}, "
                       f"{config.id}'s steps sent {pages:,}")
    if quiz and shown != "?":  # the answer, or one figure of a ratio asked for, is not given
        m, figures = step.measure, play.figures()
        parts = [evaluate(m, figures) * step.scale, evaluate(replace(m, over=None), figures)]
        parts += [evaluate(m.over, figures)] if m.over is not None else []
        if any(abs(float(shown) - x) <= step.tolerance * abs(x) for x in parts):
            bad.append(f"{where}: the tally's WA {shown} gives the quiz's answer away")
    return bad


def check_results(w, where: str) -> list[str]:
    """The results beside the step are its own run's: its charts' lines are its
    configurations, a prediction's outcome is the run's figure, a quiz's givens too."""
    panel, view = w.lesson_panel, w.lesson_results
    lesson, play, step = panel.lesson, panel.play, panel.step
    rid, _cid = named_config(lesson, play, step)
    if rid is None or rid not in play.runs:
        return []
    run, bad = lesson.step_of(rid), []
    if step.kind == "quiz":
        text = "\n".join(t.text() for t in view.tables)
        said = view.accessibleDescription()  # what a screen reader hears of the view
        for g in step.given:
            figure = number(evaluate(g, play.figures()))
            if figure not in text:
                bad.append(f"{where}: the quiz's {g.text} is not beside it")
            if figure not in said:
                bad.append(f"{where}: the quiz's {g.text} is not in the results' description")
        return bad
    labels = {c.label for c in run.configs}
    for chart in view.charts:
        lines = {s.label for s in chart.chart_data.series}
        if not lines <= labels:
            bad.append(f"{where}: a chart of {sorted(lines - labels)}, not of run {rid}")
    measured = sorted(play.measured(p) for p in predictions_about(lesson, rid)
                      if not p.rule and p.measure is not None)
    shown = sorted(v.picture.measured for v in view.predictions
                   if v.picture.kind in ("bands", "estimate"))
    if not all(any(math.isclose(s, m) for m in measured) for s in shown):
        bad.append(f"{where}: an outcome {shown} that is not the run's {measured}")
    return bad


@pytest.mark.first
def test_every_lesson_shows_its_own_run_and_states_no_answer_before_it_is_given(bench, qtbot):
    """One walk through the eighteen lessons serves two checks: at every step, what is
    shown is the step's own run and drive (above); and no text read before a question is
    answered states its answer (the module's docstring says how)."""
    from PySide6.QtTest import QTest

    from ssdlab.app.devtools.giveawaywalk import giveaways, run_in_window, walk

    panel, bad, stated, checked = bench.lesson_panel, [], [], []
    bench.resize(1366, 768)  # the give-away tester's screen: the control panel unfolded

    def wait(condition) -> None:
        qtbot.waitUntil(condition, timeout=HANG)

    def settled(i, step) -> None:
        nonlocal bad
        lesson = panel.lesson
        where = f"lesson {lesson.order} step {i + 1} ({step.kind})"
        checked.append(where)
        if step.kind == "run":
            assert step.id in panel.play.runs, f"{where}: {panel.run_note.text()}"
        bad += check_step(bench, where) + check_results(bench, where)
        choice = getattr(panel, "drive_choice", None)
        if choice is not None and choice.isVisibleTo(panel):
            run = lesson.step_of(named_config(lesson, panel.play, step)[0])
            box = choice.box
            assert box.accessibleName() and box.focusPolicy() & Qt.FocusPolicy.TabFocus
            box.setFocus()
            QTest.keyClick(box, Qt.Key.Key_Home)
            for k, c in enumerate(run.configs):
                if k:
                    QTest.keyClick(box, Qt.Key.Key_Down)
                bad += check_step(bench, f"{where}, {c.id} chosen", c.id)

    for lesson in bundled():
        screens = walk(bench, lesson, run_in_window(wait), wait, settled)
        read = [t for s in screens for t in s.texts]
        assert any(w.startswith("LinkBrowser") for w, _ in read)  # the lesson's text was read
        stated += giveaways(lesson, panel.play, screens, IN_OTHER_WORDS.get(lesson.id))
    assert len(checked) == sum(len(x.steps) for x in bundled())  # every step was checked
    assert not bad, "\n".join(bad)
    assert not stated, "\n".join(stated)
