"""The application's one event filter (ssdlab/app/gui/appearance/appevents.py): each part
sees the kinds it asked for, the newest part first, a destroyed part no more, and a window
built while the filter is off still has its guarded fields polished for the wheel guard."""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QApplication, QSpinBox, QWidget

from ssdlab.app.gui.appearance import appevents, wheelguard


class Seen(QObject):
    def __init__(self, log: list, name: str, takes: bool = False):
        super().__init__()
        self.log, self.name, self.takes = log, name, takes

    def eventFilter(self, obj, event) -> bool:  # noqa: N802 - Qt name
        # (Qt sends a key's shortcut override first, also a QKeyEvent: left out here)
        if event.type() != QEvent.Type.ShortcutOverride:
            self.log.append((self.name, type(event).__name__))
        return self.takes


def _key(widget: QWidget) -> None:
    QApplication.sendEvent(widget, QKeyEvent(QEvent.Type.KeyPress, Qt.Key.Key_A,
                                             Qt.KeyboardModifier.NoModifier, "a"))


def test_parts_see_their_kind_newest_first_until_destroyed(qtbot):
    target = QWidget()
    qtbot.addWidget(target)
    log: list = []
    older, newer = Seen(log, "older"), Seen(log, "newer", takes=True)
    appevents.watch(older, "keys")
    appevents.watch(newer, "keys")
    _key(target)
    assert log == [("newer", "QKeyEvent")]  # the newest took it: the older never saw it
    log.clear()
    newer.deleteLater()
    qtbot.waitUntil(lambda: [p for p in QApplication.instance()._app_events._parts["keys"]
                             if p is newer] == [])
    _key(target)
    QApplication.sendEvent(target, QEvent(QEvent.Type.LayoutRequest))  # no part's kind
    assert log == [("older", "QKeyEvent")]
    older.deleteLater()


def test_a_window_built_with_the_filter_off_still_guards_its_fields(qtbot):
    wheelguard.install(QApplication.instance())
    root = QWidget()
    qtbot.addWidget(root)
    log: list = []
    spy = Seen(log, "spy")
    appevents.watch(spy, "keys")
    with appevents.held(root):
        spin = QSpinBox(root)
        spin.setFocusPolicy(Qt.FocusPolicy.WheelFocus)
        spin.ensurePolished()  # polished while the filter is off
        _key(root)  # no part sees what is sent while a window is built
        assert spin.focusPolicy() == Qt.FocusPolicy.WheelFocus
    assert log == []
    # the guard was given the polish it missed: the wheel can no longer take the focus
    assert spin.focusPolicy() == Qt.FocusPolicy.StrongFocus
    _key(root)
    assert log == [("spy", "QKeyEvent")]
    spy.deleteLater()
