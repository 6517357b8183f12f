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
        self.setSpacing(spacing)
        self._row_spacing = row_spacing
        self.setContentsMargins(0, 0, 0, 0)

    def addItem(self, item: QLayoutItem) -> None:  # noqa: N802 - Qt name
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt name
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int) -> QLayoutItem | None:  # noqa: N802 - Qt name
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self) -> Qt.Orientation:  # noqa: N802 - Qt name
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt name
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt name
        return self._place(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt name
        super().setGeometry(rect)
        used = self._place(rect, move=True)
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

    def _visible(self) -> list[QLayoutItem]:
        return [i for i in self._items if not (i.widget() and i.widget().isHidden())]

    def _place(self, rect: QRect, move: bool) -> int:
        """Lay the items out in rect (or only measure); returns the height used."""
        x, y, row_h = rect.x(), rect.y(), 0
        for item in self._visible():
            hint = item.sizeHint()
            if x + hint.width() > rect.right() + 1 and x > rect.x():
                between = self.spacing() if self._row_spacing is None else self._row_spacing
                x, y, row_h = rect.x(), y + row_h + between, 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self.spacing()
            row_h = max(row_h, hint.height())
        return y + row_h - rect.y()
