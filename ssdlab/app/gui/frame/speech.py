"""The window's voice for screen readers: the block map and the charts describe themselves
(ssdlab/app/gui/run/spoken.py words), what happened is announced (Qt's accessibility announcement,
polite or assertive), both at the pace ssdlab/app/gui/frame/announcer.py sets. The status labels,
whose text changes every frame, keep one name each (a QLabel with no name of its own tells
the accessibility bridge its name changed with every setText: 58 events a second in a fast
run); their figures reach a screen reader as a description at the same slow pace (as the
tally's figures and the notes under the map and the charts do: Qt's AT-SPI bridge gives a
label no text of its own, only its name and description)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget

from ..appearance.announce import announce
from ..run.snapshot import Snapshot
from ..run.spoken import chart_description, map_description
from .announcer import Announcement, Announcer

STATUS_NAMES = {"capacity": "Drive size", "fill": "Fill", "wa": "Write amplification",
                "time": "Simulated time", "speed": "Speed of the run"}
PACE_MS = 1000  # how often held-back sentences and descriptions are looked at again


class Speech(QObject):
    """One per workbench (w.speech): an Announcer per drive view, fed by what its map shows."""

    def __init__(self, w, clock=None):
        super().__init__(w)
        self.w = w
        self.clock = clock
        self.voices: dict[object, Announcer] = {}
        self._theory: dict[object, tuple[object, float | None]] = {}  # view: (settings, WA)
        self._status_running = False
        # always going, once a PACE_MS: a label's text changes without a signal (a lesson
        # writes the progress line), and its description must follow it there too
        self.looks = 0  # how many times it has looked (a test waits for the next)
        self._timer = QTimer(self)
        self._timer.setInterval(PACE_MS)
        self._timer.timeout.connect(self._tick)
        self._timer.start()

    def voice(self, v) -> Announcer:
        if v not in self.voices:
            kwargs = {"clock": self.clock} if self.clock is not None else {}
            self.voices[v] = Announcer(**kwargs)
        an = self.voices[v]
        an.prefix = f"{v.name}: " if len(self.w.views) > 1 else ""
        return an

    def say(self, text: str, assertive: bool = False, source: QWidget | None = None) -> None:
        """A one-off sentence (a message, a breakpoint, a lesson's verdict), said at once."""
        if text:  # the window's, not a drive's: no "A: "
            self._speak(source or self.w, [Announcement(text, assertive)])

    def _speak(self, source: QWidget, sentences: list[Announcement]) -> None:
        for said in sentences:
            announce(source, said.text, said.assertive, said.topic)

    def theory(self, v) -> float | None:
        """The analytic WA of the drive v shows (none for a lesson's drive on the map):
        worked out once per settings."""
        if self.w.in_lesson or not v.shows_own_drive:
            return None
        if v.session.theory_wa_shown(v.snapshot) is None:  # nothing written: no figure
            return None
        settings, wa = self._theory.get(v, (None, None))
        if settings is not v.settings:
            wa = v.session.theory_wa()
            self._theory[v] = (v.settings, wa)
        return wa

    def shown(self, v, snap: Snapshot | None) -> None:
        """v's map now shows snap: what happened is said, the descriptions follow."""
        if snap is None:
            return
        an = self.voice(v)
        was_running = an.running
        if snap.gc_phase:  # a GC at teaching pace: the lesson says its phases
            an.told(snap)
        else:
            self._speak(v.blockmap, an.follow(snap, self.theory(v)))
        self._describe(v, snap, changed_now=was_running != snap.running)

    def _describe(self, v, snap: Snapshot, changed_now: bool = False) -> bool:
        """Each description that may change now changes; True when all are up to date."""
        an, w = self.voice(v), self.w
        done = self._paced(an, "map", lambda: {
            v.blockmap: v.blockmap.cursor.described(map_description(snap))}, changed_now)
        done = self._paced(an, "tally", lambda: tally_words(v.tally), changed_now) and done
        if v is not w.views[0]:
            return done

        def charts() -> dict:  # each from the data it draws
            return {view: chart_description(view.spec.title, w.charts.table(name, snap))
                    for name, view in w.charts.views.items()}
        return self._paced(an, "charts", charts, changed_now) and done

    def status_shown(self) -> None:
        """The status line shows new figures (ssdlab/app/gui/frame/statusline.py show): its
        labels' descriptions follow at the pace; at once when a run starts or stops."""
        w = self.w
        v = w.views[0]
        running = v.snapshot is not None and v.snapshot.running
        changed_now, self._status_running = running != self._status_running, running
        self._describe_status(changed_now)

    def _describe_status(self, changed_now: bool = False) -> bool:
        w = self.w
        v = w.views[0]

        def status() -> dict:
            return {lab: lab.text() for lab in (*w.status.values(), w.progress_label,
                                                 w.wa_note)}
        return self._paced(self.voice(v), "status", status, changed_now)

    @staticmethod
    def _paced(an: Announcer, key: str, make: Callable[[], dict], changed_now: bool) -> bool:
        """Each widget of make()'s {widget: words} gets its description when the pace
        allows (make is called only then: a frame costs nothing between times); True when
        all have theirs, False while the pace holds them back."""
        if not (changed_now or an.may_describe(key)):
            return False
        texts = make()
        if an.describe(key, repr(sorted(texts.values())), changed_now):
            for widget, words in texts.items():
                widget.setAccessibleDescription(words)
        return all(wd.accessibleDescription() == t for wd, t in texts.items())

    def _tick(self) -> None:
        """Sentences and descriptions held back by the pace, once it allows them."""
        self.looks += 1
        for v in list(self.voices):
            if v not in self.w.views:
                del self.voices[v]
                continue
            an = self.voices[v]
            self._speak(v.blockmap, an.due())
            snap = v.blockmap.snapshot
            if snap is not None:
                self._describe(v, snap)
        if self.w.views:
            self._describe_status()


def tally_words(tally) -> dict:
    """The tally's figures as their labels' descriptions (each label's name says what it
    counts, and the bridge gives a named label's text to no one: the description is where a
    listener finds the figure), the WA's with its division."""
    texts = {label: label.text() for label in tally.values.values()}
    wa = tally.values["wa"]
    texts[wa] = f"{wa.text()}: {wa.toolTip()}"
    texts[tally.now] = tally.now.text()
    return texts


def install(w) -> None:
    """The status labels' stable names, and the window's voice (w.speech)."""
    for key, label in w.status.items():
        label.setAccessibleName(STATUS_NAMES[key])
    w.progress_label.setAccessibleName("Progress of the run")
    w.wa_note.setAccessibleName("Why the write amplification is what it is")
    w.speech = Speech(w)


def follow(w, v) -> None:
    """Drive view v's map speaks through w.speech (A at start, B in compare mode)."""
    v.blockmap.setAccessibleName(f"Block map of drive {v.name}")
    v.blockmap.shown.connect(lambda snap, v=v: w.speech.shown(v, snap))
