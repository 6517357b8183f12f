"""Two drives side by side, and runs kept as references, in the workbench.

Compare mode adds drive view B beside A (ssdlab/app/gui/drive/driveview.py). B starts as a copy of
A's settings; the control panel edits A or B (its A | B choice, Ctrl+1 / Ctrl+2) and frames the
settings where they differ. Drive, mapping, GC, spare, partition and file-system settings
are each drive's own; the workload, its seed and the speed are shared, and the frame sends
both drives the same segments, which their workers run in lockstep (ssdlab/model/lab/lockstep.py).

A reference is a finished or paused run kept on the charts, faded, after the drives change:
its snapshot (a copy the GUI may keep) and the settings it ran with. With a reference
pinned, changing a drive setting starts a new run without asking, since nothing shown is
lost. References live as long as the window; session files do not hold them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from ssdlab.app.session.runlabels import differing, run_labels
from ssdlab.app.session.wanotes import analytic_name
from ssdlab.model.lab.lockstep import Lockstep

from ..appearance import theme
from ..charts.charts import Run
from ..drive.driveview import DriveView
from ..run.snapshot import Snapshot
from ..settings.session import DRIVE_FIELDS, MOUNT_FIELDS, Settings, check_settings
from . import statusline

# Each drive's own settings; every other setting (the workload, its seed, the speed, the
# map's colouring) is shared by both drives.
PER_DRIVE = frozenset(DRIVE_FIELDS) - {"seed"} | frozenset(MOUNT_FIELDS) | {"fstrim_every_min"}
TAGS = ("A", "B")
LESSON_PAIR_MAP_MIN_PX = 120


@dataclass(frozen=True)
class Reference:
    """A run kept on the charts: what it ran with, and its last snapshot."""

    tag: str  # "ref", or "ref A" / "ref B" when two drives were pinned
    settings: Settings
    snap: Snapshot


def comparing(w) -> bool:
    return len(w.views) > 1


def split(w, changes: dict) -> list[tuple[DriveView, dict]]:
    """The changes each drive gets: the edited one all of them, the other the shared ones."""
    edited = w.views[w.edited]
    plan = [(v, changes if v is edited else {k: x for k, x in changes.items()
                                             if k not in PER_DRIVE}) for v in w.views]
    return [(v, c) for v, c in plan if c]


def set_on(w, on: bool, ask: bool = True) -> bool:
    """Drive B beside A (a copy of A's settings), or back to A alone. Opening starts both
    drives afresh: a run with data is discarded after a yes (none is asked while a
    reference keeps what is shown, or when ask is False). True when comparing."""
    if on != comparing(w):
        if on and ask and w.has_data() and not w.references and not w.confirm(
                "Comparing starts both drives afresh: this discards the current run. "
                "Continue?"):
            on = False
        elif on:
            open_b(w)
        else:
            close_b(w)
    w.compare_button.setChecked(comparing(w))
    action = w.actions_by_slot["toggle_compare"]
    action.blockSignals(True)
    action.setChecked(comparing(w))
    action.blockSignals(False)
    apply_theme(w)
    w.show_run()
    w.arranger.update()  # the status figures for one drive or two
    return comparing(w)


def show_pair(w, settings_a: Settings, settings_b: Settings) -> bool:
    """Drives A and B with these settings, both afresh (a lesson's two configurations);
    False when either is refused (the error line names the field and its range)."""
    for tag, s in zip(TAGS, (settings_a, settings_b), strict=True):
        try:
            check_settings(s)
        except ValueError as e:
            w.controls.show_error(f"Compare, drive {tag}: {e}")
            return False
    set_on(w, True, ask=False)
    for v, s in zip(w.views, (settings_a, settings_b), strict=True):
        v.session.settings = s
        w.settings_changed(v, s, True)
    return True


def open_b(w, settings: Settings | None = None, lesson: bool = False) -> DriveView:
    """Add drive B beside A (settings: B's; default a copy of A's); both start afresh.
    lesson: B's map shows the second drive of a lesson's run, not a drive of its own, and
    A's own run (paused while the lesson shows its drive) is kept."""
    a = w.views[0]
    gate = w.lockstep = Lockstep(slack=0.0)  # neither drive may lead
    if not lesson:
        gate.join(a.worker)  # now, so neither drive can start alone before A's thread hears
        a.send("lockstep", gate)
    b = DriveView("B", settings or a.settings, gate, parent=w)
    b.shows_own_drive = not lesson
    w.add_view(b)
    b.start()
    w.maps_layout.addWidget(b.widget, 1)
    w.legends_layout.addWidget(b.legend, 1)
    if not lesson:
        a.send("reset")
    w.configure_view(b, b.settings)
    titles(w)
    return b


def lesson_pair(w, pair: tuple[tuple[str, Settings], tuple[str, Settings]] | None) -> None:
    """A lesson's run of two configurations on maps A and B, each titled with its
    configuration's label (pair: (label, settings) of each; None: back to A alone). The
    lesson's job draws both maps; the drives' own workers stay idle, and A's own run is
    kept for after the lesson. The controls show the lesson's settings, read-only, so the
    A | B choice stays hidden."""
    if pair is None:
        if comparing(w):
            set_on(w, False)
        w.views[0].blockmap.setMinimumWidth(w.views[0].blockmap.MIN_WIDTH_PX)
        return
    if not comparing(w):
        open_b(w, pair[1][1], lesson=True)
        apply_theme(w)
        w.arranger.update()
    w.controls.show_drive_choice(None)
    w.controls.mark_differences(set())
    for v, tag, (label, _s) in zip(w.views, TAGS, pair, strict=True):
        v.title.setVisible(True)
        v.title.setText(f"{tag}: {label}")
        # two maps beside the lesson panel: at 1024 px in projector type two full-width
        # minimums pushed the window past the screen
        v.blockmap.setMinimumWidth(LESSON_PAIR_MAP_MIN_PX)


def close_b(w) -> None:
    """Back to one drive: B's worker ends and its map goes; A leaves the lockstep."""
    b = w.views.pop()
    b.stop()
    # out of their layouts and hidden at once, deleted by Qt with the next events: made
    # parentless, they were Python's to delete, whenever its cycle collector came to them,
    # which could be in the middle of a restyle (frame/themefit.py)
    for layout, part in ((w.maps_layout, b.widget), (w.legends_layout, b.legend)):
        layout.removeWidget(part)
        part.hide()
        part.deleteLater()
    b.deleteLater()
    w.views[0].send("lockstep", None)
    w.lockstep = None
    w.edited = 0
    titles(w)
    w.show_settings()


def labels(w) -> dict[str, str]:
    """Legend labels by tag (A, B and the references' tags): what sets each run apart."""
    runs = [(t, v.settings) for t, v in zip(TAGS, w.views, strict=False)]
    runs += [(r.tag, r.settings) for r in w.references]
    if len(runs) == 1:
        return {"A": ""}
    if not comparing(w):  # one drive beside references: the drive is what runs now
        runs[0] = ("now", runs[0][1])
    texts = run_labels([t for t, _ in runs], [s for _, s in runs])
    out = dict(zip([t for t, _ in runs], texts, strict=True))
    if not comparing(w):
        out["A"] = out.pop("now")
    return out


def others(w, names: dict[str, str]) -> list[Run]:
    """The runs the charts draw over A's: B, then the references."""
    out = []
    if comparing(w) and w.views[1].snapshot is not None:
        b = w.views[1]
        out.append(Run("B", names["B"], b.snapshot, "second",
                       b.session.theory_wa_shown(b.snapshot), analytic_name(b.settings)))
    out += [Run(f"ref{i}", names[r.tag], r.snap, "ref") for i, r in enumerate(w.references)]
    return out


def titles(w) -> None:
    """Each map's title names its drive and what differs from the other (shown with two
    drives only); B's legend shows only where its colours differ from A's (a heat map's
    range)."""
    on = comparing(w)
    names = run_labels(TAGS, [v.settings for v in w.views]) if on else []
    for v, text in zip(w.views, names or ["A"], strict=True):
        v.title.setVisible(on)
        v.title.setText(text)
    if on:
        w.views[1].legend.setVisible(w.views[1].settings.heatmap != "state")
    w.controls.show_drive_choice(w.edited if comparing(w) else None)
    w.controls.mark_differences(set(differing([v.settings for v in w.views]))
                                & PER_DRIVE if comparing(w) else set())
    w._fit_panel()  # the A | B row and framed fields may need a wider panel


def pin(w) -> bool:
    """Keep the drives' runs as references (each pauses first); False when none has run."""
    if not w.has_data():
        statusline.say(w, "Keep as reference: run a workload first",
                       until=lambda w: w.has_data())
        return False
    w.settle()
    tags = ["ref"] if not comparing(w) else [f"ref {v.name}" for v in w.views]
    w.references = [Reference(tag, v.settings, v.snapshot)
                    for tag, v in zip(tags, w.views, strict=True) if v.has_data()]
    # short: in projector type the status bar's figures leave little room for a message
    statusline.say(w, "Reference kept", until=lambda w: not w.references)
    _references_shown(w)
    return True


def clear(w) -> None:
    w.references = []
    _references_shown(w)
    statusline.drop_stale(w)  # "Reference kept" no longer holds


def _references_shown(w) -> None:
    w.reference_button.setChecked(bool(w.references))
    titles(w)
    w.show_run()
    w.arranger.update()  # on a 768-line projector the control panel may fold


def scenario_for_b(w, settings: Settings) -> Settings:
    """B's settings for a scenario A runs with `settings`: the scenario's, with B's own
    differences from A kept."""
    a, b = w.views[0].settings, w.views[1].settings
    own = {k: getattr(b, k) for k in differing([a, b]) if k in PER_DRIVE}
    return replace(settings, **own)


LESSON_MAP_SHARE = 3  # a lesson's map in presentation mode: a third of the screen's height


def map_heights(w) -> None:
    """Each map's minimum height in the current type (two maps share the same row)."""
    present = theme.current().large
    least = 100 if present else 160
    if present and getattr(w, "in_lesson", False) and w.screen() is not None:
        # a lesson in presentation mode: a map the back row can watch (it was 60 to 80 px
        # tall), a third of the screen; the lesson's text beside and under it scrolls
        least = max(least, w.screen().geometry().height() // LESSON_MAP_SHARE)
    for v in w.views:
        v.blockmap.setMinimumHeight(least)


def apply_theme(w) -> None:
    map_heights(w)
    for v in w.views:
        v.legend.refresh()
        if v.shows_own_drive:
            v.blockmap.set_snapshot(v.snapshot)
