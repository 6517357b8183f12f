"""A layout that places widgets left to right and wraps to a new row when the width runs
out, so the workbench's button row fits a 1024-pixel screen beside the lesson panel instead
of forcing the window wider than the screen."""

from __future__ import annotations

from PySide6.QtCore import QPoint, QRect, QSize, Qt
from PySide6.QtWidgets import QLayout, QLayoutItem


class FlowLayout(QLayout):
    def __init__(self, parent=None, spacing: int = 6, row_spacing: int | None = None):
        """spacing: px between items in a row; row_spacing: px between rows (spacing if
        None)."""
        super().__init__(parent)
        if parent is not None:  # the parent layout must ask how tall the rows make it
            policy = parent.sizePolicy()
            policy.setHeightForWidth(True)
            parent.setSizePolicy(policy)
        self._items: list[QLayoutItem] = []
        self._kept: set[int] = set()  # id() of items that never start a row
        self._either: tuple[list, list] = ([], [])  # widgets of which one set shows
        self.setSpacing(spacing)
        self._row_spacing = row_spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt name
        self._items.append(item)

    def add_kept_with_previous(self, widget) -> None:
        """Add widget so that it never starts a row: when it would wrap, the item before it
        wraps with it (a small button is not left alone on a row)."""
        self.addWidget(widget)
        self._kept.add(id(self._items[-1]))

    def kept_with_previous(self, widget) -> bool:
        """Whether widget was added never to start a row."""
        return any(i.widget() is widget and id(i) in self._kept for i in self._items)

    def set_either(self, first: list, second: list) -> None:
        """Two sets of widgets of which one shows at a time (the other hidden by the
        caller): the rows claim the height the taller takes at their width, whichever
        shows, so that showing the other never changes their height."""
        self._either = (list(first), list(second))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt name
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt name
        if not 0 <= index < len(self._items):
            return None
        self._kept.discard(id(self._items[index]))
        return self._items.pop(index)

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt name
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt name
        rect = QRect(0, 0, width, 0)
        return max(self._place(rect, move=False), self._place(rect, move=False, other=True))

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt name
        super().setGeometry(rect)
        used = max(self._place(rect, move=True), self._place(rect, move=False, other=True))
        # A splitter asks the container's minimum size, which knows nothing of
        # height-for-width: without this, rows that wrapped would overlap what is below.
        box = self.parentWidget()
        if box is not None and box.minimumHeight() != used:
            box.setMinimumHeight(used)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt name
        width = sum(i.sizeHint().width() + self.spacing() for i in self._visible())
        height = max((i.sizeHint().height() for i in self._visible()), default=0)
        return QSize(width, height)

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt name
        size = QSize()
        for item in self._visible():
            size = size.expandedTo(item.minimumSize())
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _visible(self, other: bool = False) -> list[QLayoutItem]:
        """The items shown; other: with the set of set_either not shown in place of the
        one shown."""
        if other and any(self._either):
            first, second = self._either
            hidden = second if any(not w.isHidden() for w in first) else first
            shown = first if hidden is second else second
            return [i for i in self._items if i.widget() in hidden or (
                i.widget() not in shown and not (i.widget() and i.widget().isHidden()))]
        return [i for i in self._items if not (i.widget() and i.widget().isHidden())]

    def _groups(self, other: bool = False) -> list[list[QLayoutItem]]:
        """The visible items in runs that wrap as one: an item and those kept with it."""
        groups: list[list[QLayoutItem]] = []
        for item in self._visible(other):
            if groups and id(item) in self._kept:
                groups[-1].append(item)
            else:
                groups.append([item])
        return groups

    def _place(self, rect: QRect, move: bool, other: bool = False) -> int:
        """Lay the items out in rect (or only measure, as with set_either's other set
        shown); returns the height used."""
        if other and not any(self._either):
            return 0
        x, y, row_h = rect.x(), rect.y(), 0
        for group in self._groups(other):
            # a hidden widget's own hint: its layout item says 0 x 0
            hints = [item.widget().sizeHint() if item.widget() is not None
                     and item.widget().isHidden() else item.sizeHint() for item in group]
            if len(group) == 1 and hints[0].width() > rect.width() > 0 \
                    and group[0].hasHeightForWidth():
                # wider than the row, and able to wrap itself (a flow of its own): the
                # row's width, and the height its contents take at it
                hints = [QSize(rect.width(), group[0].heightForWidth(rect.width()))]
            width = sum(h.width() for h in hints) + self.spacing() * (len(hints) - 1)
            if x + width > rect.right() + 1 and x > rect.x():
                between = self.spacing() if self._row_spacing is None else self._row_spacing
                x, y, row_h = rect.x(), y + row_h + between, 0
            for item, hint in zip(group, hints, strict=True):
                if move:
                    item.setGeometry(QRect(QPoint(x, y), hint))
                x += hint.width() + self.spacing()
                row_h = max(row_h, hint.height())
        return y + row_h - rect.y()
