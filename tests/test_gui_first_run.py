"""The first Run a newcomer presses, on the default drive: it fills the drive, then rewrites
it at random until write amplification is steady, and the window shows one analytic
figure, the same on the chart and in the note, with the note in plain words."""

import math
import re
from dataclasses import replace

from PySide6.QtCore import Qt

from ssdlab.app.devtools.docsamples import blocks, documents, shown_name
from ssdlab.app.session.settings import Settings, theory_wa

FIRST_NOTE = "Rewriting a full drive makes it copy pages still in use"


def _comparable(note: str) -> str:
    """The note with the two figures read from the recorder's samples masked: the last drive
    write's WA and its gap to the model move by a hundredth or so with where the samples
    fell, which depends on the machine's pace; everything else is the run's own."""
    flat = " ".join(note.replace("\u00a0", " ").split())
    flat = re.sub(r"simulated \d+\.\d+ in the last", "simulated # in the last", flat)
    return re.sub(r"run is \d+ % (above|below)", r"run is # % \1", flat)


def _notes_shown_in_the_docs() -> list[tuple[str, str]]:
    """(where, text) for each sample of the first run's note in README.md and docs/*.md."""
    found = []
    for page in documents():
        for b in blocks(page.read_text(encoding="utf-8"), page):
            if b.lang == "text" and b.text.startswith(FIRST_NOTE):
                found.append((f"{shown_name(page)} line {b.line}", b.text))
    return found


def test_the_default_run_reaches_steady_state_beside_one_analytic_figure(qtbot, until,
                                                                         bench):
    s = bench.session.settings
    # the bench runs fast: the same run as at normal pace, without the waiting
    assert s == replace(Settings(), speed="fast")
    assert s.workload == "steady" and s.capacity_mib == 64.0
    qtbot.mouseClick(bench.run_button, Qt.MouseButton.LeftButton)
    until(lambda: bench.snapshot.counters["host_writes"] > 0)
    until(lambda: not bench.snapshot.running and not bench.snapshot.segment)
    snap, user = bench.snapshot, s.user_pages
    assert snap.counters["host_writes"] == 3 * user  # the fill, then 2 drive writes
    assert float(snap.valid.sum()) == user and snap.counters["gc_copies"] > 0
    model = theory_wa(bench.session.settings)
    assert bench.charts.theory == model and 7.0 < model < 7.6
    note = bench.wa_note.text()
    assert bench.wa_note.isVisibleTo(bench)
    # one analytic figure: the chart's level, named in the note; nothing else from a model
    assert f"model (2013): {model:.2f} (dotted)" in note and "6.40" not in note
    recent = float(note.split("simulated ")[1].split()[0])
    assert abs(recent - model) / model < 0.06  # steady state: near the model
    cumulative = float(bench.status["wa"].text().split()[1])
    # the status bar's, written the same way, explained
    assert f"{cumulative:.3f} with the fill" in note, (note, bench.status["wa"].text())
    assert cumulative < recent  # the fill copied nothing
    # the pages that show a newcomer this note show what the window writes today
    shown = _notes_shown_in_the_docs()
    assert shown, "README.md no longer shows the first run's note"
    for where, text in shown:
        assert _comparable(text) == _comparable(note), (
            f"{where}: the first run's note is out of date; the window writes:\n{note}")


def test_a_second_run_on_the_full_drive_goes_straight_to_the_rewrites(until, bench):
    assert bench.request(capacity_mib=32.0, amount=0.5), bench.session.last_error
    user = bench.session.settings.user_pages
    until(lambda: bench.snapshot is not None and bench.snapshot.user_pages == user)
    first = bench.segment()
    assert first.kind == "steady" and first.total == user + user // 2
    bench.run_workload()
    until(lambda: bench.snapshot.counters["host_writes"] > 0)
    until(lambda: not bench.snapshot.running and not bench.snapshot.segment)
    second = bench.segment()
    assert second.kind == "random" and second.total == user // 2
    assert not math.isnan(bench.charts.theory)
