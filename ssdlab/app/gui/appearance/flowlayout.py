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
        # the height the rows claim at each width asked, until the layout is invalidated
        # (as Qt's own layouts keep theirs): a window's layouts ask it thousands of times
        self._heights: dict[int, int] = {}
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
        height = self._heights.get(width)
        if height is None:
            height = self._heights[width] = self._claimed(QRect(0, 0, width, 0))
        return height

    def invalidate(self) -> None:
        """An item shown, hidden, added or resized: Qt invalidates the layout."""
        self._heights.clear()
        super().invalidate()

    def _claimed(self, rect: QRect) -> int:
        """The height the rows claim in rect: with set_either's sets, the taller of the two
        laid out, whichever shows now or while it is being changed."""
        if not any(self._either):
            return self._place(rect, move=False)
        return max(self._place(rect, move=False, which=0),
                   self._place(rect, move=False, which=1))

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt name
        super().setGeometry(rect)
        self._place(rect, move=True)
        used = self.heightForWidth(rect.width())  # (rows wrap the same wherever they start)
        # A splitter asks the container's minimum size, which knows nothing of
        # height-for-width: without this, rows that wrapped would overlap what is below.
        box = self.parentWidget()
        if box is not None and box.minimumHeight() != used:
            box.setMinimumHeight(used)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt name
        hints = [self._hint(i) for i in self._counted()]
        width = sum(h.width() + self.spacing() for h in hints)
        height = max((h.height() for h in hints), default=0)
        return QSize(width, height)

    def _counted(self) -> list[QLayoutItem]:
        """The items the size hints count: those shown and both of set_either's sets, so
        that which set shows (or the moment between, while one is hidden and the other
        shown entry by entry) never changes a hint: showing a widget lays its ancestors
        out at once, and a legend whose hints changed in the middle resized the block map,
        which then drew pages or not and changed the legend again, without end."""
        either = {id(w) for w in (*self._either[0], *self._either[1])}
        return [i for i in self._items if id(i.widget()) in either
                or not (i.widget() and i.widget().isHidden())]

    @staticmethod
    def _hint(item: QLayoutItem, least: bool = False) -> QSize:
        """An item's size hint (least: its minimum); a hidden widget's own, where its
        layout item says 0 x 0."""
        w = item.widget()
        if w is not None and w.isHidden():
            return w.minimumSizeHint() if least else w.sizeHint()
        return item.minimumSize() if least else item.sizeHint()

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt name
        size = QSize()
        for item in self._counted():
            size = size.expandedTo(self._hint(item, least=True))
        m = self.contentsMargins()
        return size + QSize(m.left() + m.right(), m.top() + m.bottom())

    def _visible(self, which: int | None = None) -> list[QLayoutItem]:
        """The items shown; which (0 or 1): as if set_either's set of that number showed
        and the other did not, whatever shows now."""
        if which is not None and any(self._either):
            shown, hidden = self._either[which], self._either[1 - which]
            return [i for i in self._items if i.widget() in shown or (
                i.widget() not in hidden and not (i.widget() and i.widget().isHidden()))]
        return [i for i in self._items if not (i.widget() and i.widget().isHidden())]

    def _groups(self, which: int | None = None) -> list[list[QLayoutItem]]:
        """The visible items in runs that wrap as one: an item and those kept with it."""
        groups: list[list[QLayoutItem]] = []
        for item in self._visible(which):
            if groups and id(item) in self._kept:
                groups[-1].append(item)
            else:
                groups.append([item])
        return groups

    def _place(self, rect: QRect, move: bool, which: int | None = None) -> int:
        """Lay the items out in rect (or only measure, as with set_either's set which
        shown); returns the height used."""
        x, y, row_h = rect.x(), rect.y(), 0
        for group in self._groups(which):
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
