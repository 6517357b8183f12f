"""One event filter for the whole application, shared by the parts that must see events of
every widget: the field and answer keys (frame/shortcuts.py, frame/answerkeys.py), the wheel
guard (wheelguard.py) and the label names (accessnames.py).

Every event of the application passes through each of the application's event filters: each
paint, timer, layout request and style change, about 18,000 while one window is built. A
filter written in Python costs a call into Python with the object and the event wrapped for
it, whatever it then does; four such filters were more than half of the processor time it
took to build a window. Here the events are wrapped once and sorted by their class before any
part is called, and a part is called only for the kind it asked for.

A part is a QObject with Qt's `eventFilter(obj, event) -> bool` (True: the event is taken);
`watch` adds it for some kinds, and it leaves on its own when it is destroyed. As among Qt's
own filters, the part added last is asked first.

While a window is built or restyled (`held`) the filter is off: neither returns to the event
loop, so no key, wheel or window from outside can arrive, and the events Qt sends meanwhile to
the window's widgets (polish, style, font, child and layout changes) are more than a second's
work for a filter in Python when a window is built, and 40 % of a new style sheet's (0.5 s to
0.3 s of processor time at a presentation toggle). The polish a part missed meanwhile is given
to it once the filter is back.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from PySide6.QtCore import QEvent, QObject
from PySide6.QtGui import QKeyEvent, QShowEvent, QWheelEvent
from PySide6.QtWidgets import QApplication, QWidget
from shiboken6 import isValid

KINDS = ("keys", "wheel", "window_shown", "polish")


def _kind(event_class: type) -> str:
    """The kind of part an event of this class is for ("" for none; "plain" for a QEvent of
    no class of its own, which may be a Polish)."""
    for base, kind in ((QKeyEvent, "keys"), (QWheelEvent, "wheel"),
                       (QShowEvent, "window_shown")):
        if issubclass(event_class, base):
            return kind
    return "plain" if event_class is QEvent else ""


class AppEvents(QObject):
    """The application's one filter: see the module's docstring."""

    def __init__(self, app: QApplication):
        super().__init__(app)
        self._parts: dict[str, tuple[QObject, ...]] = {kind: () for kind in KINDS}
        self._polished: tuple[type, ...] = ()  # the classes some part wants polished
        # by class, once each: isinstance on a Qt class costs microseconds, and it would
        # be asked of every event
        self._kinds: dict[type, str] = {}
        self._wants_polish: dict[type, bool] = {}
        self._held = 0  # windows being built or restyled: the filter is off while any is
        self._roots: list[QWidget] = []  # their widgets are given their polish at the end
        app.installEventFilter(self)

    def add(self, part: QObject, kinds: tuple[str, ...], polished: tuple[type, ...]) -> None:
        for kind in kinds:
            if kind not in KINDS:
                raise ValueError(f"event kind {kind!r}: one of {', '.join(KINDS)}")
            self._parts[kind] = (part, *self._parts[kind])
        self._polished = tuple(dict.fromkeys((*self._polished, *polished)))
        self._wants_polish.clear()
        # a lambda holding no reference to the part's wrapper beyond the id: the part is
        # being destroyed when it fires
        key = id(part)
        part.destroyed.connect(lambda _o=None, key=key: self._drop(key))

    def hold(self) -> None:
        if self._held == 0:
            self.parent().removeEventFilter(self)
        self._held += 1

    def release(self, root: QWidget) -> None:
        self._held -= 1
        self._roots.append(root)
        if self._held:  # held again inside (a window's theme applied while it is built)
            return
        self.parent().installEventFilter(self)
        roots = [r for r in dict.fromkeys(self._roots) if isValid(r)]
        self._roots.clear()
        polish = QEvent(QEvent.Type.Polish)
        made = [w for r in roots for cls in self._polished for w in r.findChildren(cls)]
        for part in self._parts["polish"]:
            for widget in made:
                part.eventFilter(widget, polish)

    def _drop(self, key: int) -> None:
        for kind, parts in self._parts.items():
            self._parts[kind] = tuple(p for p in parts if id(p) != key)

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        kind = self._kinds.get(type(event))
        if kind is None:
            kind = self._kinds[type(event)] = _kind(type(event))
        if not kind:
            return False
        if kind == "plain":
            # the event's type is an enum made in Python, costly: read only for the objects
            # a part wants to see polished
            wants = self._wants_polish.get(type(obj))
            if wants is None:
                wants = self._wants_polish[type(obj)] = issubclass(type(obj), self._polished)
            if not wants or event.type() != QEvent.Type.Polish:
                return False
            kind = "polish"
        elif kind == "window_shown" and not (isinstance(obj, QWidget) and obj.isWindow()):
            return False
        # (a part whose parent is being destroyed may still be listed for an event or two)
        return any(isValid(part) and part.eventFilter(obj, event)
                   for part in self._parts[kind])


def watch(part: QObject, *kinds: str, polished: tuple[type, ...] = ()) -> None:
    """part's eventFilter sees the application's events of these kinds (KINDS): key presses
    and shortcut overrides, wheel turns, a window shown, and the Polish event of a widget of
    one of the classes `polished` (kind "polish")."""
    _events().add(part, kinds, polished)


def _events() -> AppEvents:
    app = QApplication.instance()
    events = getattr(app, "_app_events", None)
    if events is None:
        events = app._app_events = AppEvents(app)
    return events


@contextmanager
def held(root: QWidget) -> Iterator[None]:
    """The application's filter off while root's widgets are made or restyled (see the
    module's docstring); then each part that watches polish is given root's widgets of its
    classes."""
    events = _events()
    events.hold()
    try:
        yield
    finally:
        events.release(root)
