"""A minimal main window that lists a simulated drive's numbers."""

from collections.abc import Mapping

from PySide6.QtWidgets import QFormLayout, QLabel, QMainWindow, QWidget

WINDOW_TITLE = "SSD Lab"


def format_value(value: object) -> str:
    """Integers with thousands separators, floats to four significant digits."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


class DriveSummaryWindow(QMainWindow):
    """Shows ``label -> value`` pairs in a form, one row per entry."""

    def __init__(self, summary: Mapping[str, object], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(WINDOW_TITLE)
        central = QWidget(self)
        self._form = QFormLayout(central)
        self.setCentralWidget(central)
        self.set_summary(summary)

    def set_summary(self, summary: Mapping[str, object]) -> None:
        """Replace every row with the entries of ``summary``."""
        while self._form.rowCount():
            self._form.removeRow(0)
        for label, value in summary.items():
            self._form.addRow(f"{label}:", QLabel(format_value(value)))

    def rows(self) -> dict[str, str]:
        """The labels and texts shown, for tests and screenshots."""
        shown = {}
        for row in range(self._form.rowCount()):
            label = self._form.itemAt(row, QFormLayout.ItemRole.LabelRole).widget()
            field = self._form.itemAt(row, QFormLayout.ItemRole.FieldRole).widget()
            shown[label.text().removesuffix(":")] = field.text()
        return shown
