"""What a screen reader is told (issue 25): the accessibility tree (QAccessible, the same
tree the AT-SPI bridge puts on the desktop bus) walked from each window in every state;
every interactive object (button, check box, combo, spin box, edit, list, tab, slider) has
a name that says what it is, never nothing and never only its value ("on", "fast")."""

from __future__ import annotations

import pytest
from _window_states import STATES, settle
from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import QWidget

HANG = 5 * 60 * 1000
R = QAccessible.Role
INTERACTIVE = {R.PushButton, R.CheckBox, R.RadioButton, R.ComboBox, R.SpinBox,
               R.EditableText, R.List, R.PageTab, R.Slider, R.ButtonMenu, R.ButtonDropDown,
               R.Table, R.Tree}
NAME, VALUE = QAccessible.Text.Name, QAccessible.Text.Value


@pytest.fixture
def lab(qtbot, tmp_path, monkeypatch, compiled_engine):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path / "config"))
    from ssdlab.app.gui.frame.workbench import Workbench

    w = Workbench()
    w.confirm = lambda text: False
    qtbot.addWidget(w)
    w.resize(1024, 768)
    w.show()
    qtbot.waitUntil(lambda: w.snapshot is not None, timeout=HANG)
    yield w
    if w.lesson_panel.job is not None:
        w.lesson_panel.job.cancel()
        w.lesson_panel.job.wait()
    w.close()


def walk(iface, depth: int = 0):
    """Every shown object of the tree below iface (iface first)."""
    if iface is None or not iface.isValid() or depth > 60:
        return
    if iface.state().invisible:
        return
    yield iface
    for i in range(iface.childCount()):
        yield from walk(iface.child(i), depth + 1)


def interactive(obj) -> bool:
    """A control, or a text that Tab stops on (the lesson's text, a definition)."""
    if obj.role() in INTERACTIVE:
        return True
    widget = obj.object()
    return obj.role() == R.StaticText and isinstance(widget, QWidget) and bool(
        widget.focusPolicy() & Qt.FocusPolicy.TabFocus)


def label_of(obj) -> str:
    """The words of the labels obj is labelled by (QLabel buddies; a group box's title
    is not enough: it names a group, not the control)."""
    return " ".join(other.text(NAME) for other, _rel in obj.relations(QAccessible.Relation.Label)
                    if other.role() == R.StaticText).strip()


def unnamed(top) -> list[str]:
    """The interactive objects of top's tree whose name is empty or only their value."""
    bad = []
    for obj in walk(QAccessible.queryAccessibleInterface(top)):
        if not interactive(obj):
            continue
        name, value = obj.text(NAME).strip(), obj.text(VALUE).strip()
        if obj.role() == R.ComboBox and name == value:
            # Qt on Linux names a closed list by its choice and says what it is through
            # a "labelled by" relation to its label (what Orca speaks): that label counts
            name = label_of(obj)
        weak = not name or name == value or name.lower() in {"on", "off", "?"}
        if weak:
            widget = obj.object()
            bad.append(f"{obj.role().name} {name!r} (value {value!r}, "
                       f"{type(widget).__name__}, tip {widget.toolTip()[:50]!r})"
                       if hasattr(widget, "toolTip") else f"{obj.role().name} {name!r}")
    return bad


def named(top) -> list[tuple[str, str]]:
    return [(o.role().name, label_of(o) if o.role() == R.ComboBox else o.text(NAME))
            for o in walk(QAccessible.queryAccessibleInterface(top)) if interactive(o)]


@pytest.mark.parametrize("state", list(STATES))
def test_every_interactive_object_has_a_name(lab, state):
    top = STATES[state](lab)
    settle()
    assert len(named(top)) >= 1, f"{state}: the tree shows almost nothing: {named(top)}"
    bad = unnamed(top)
    assert not bad, f"{state}: " + "\n".join(bad)


def test_the_names_say_what_the_controls_are(lab):
    def names(state):
        top = STATES[state](lab)
        lab.controls.set_fs_shown(True)  # the journal and discard boxes unfolded
        settle()
        return {n for _role, n in named(top)}

    assert {"Speed", "Colour by", "Compare two drives, A and B", "Keep as reference",
            "Keyboard help", "Journal", "discard"} <= names("explore")
    assert {"Lesson text", "Your prediction"} <= names("lesson predict")
    assert "Your answer" in names("lesson quiz")
    assert {"Search the glossary", "Glossary terms", "Definition"} <= names("glossary")
