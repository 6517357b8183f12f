"""Entry point of the desktop application."""

from collections.abc import Sequence

from PySide6.QtWidgets import QApplication

from app.window import DriveSummaryWindow


def launch(argv: Sequence[str]) -> int:
    """Open the main window on a default simulated drive; return Qt's exit status."""
    # Imported here so that importing app.gui never pulls in the simulator.
    from model.summary import default_summary

    qt_app = QApplication.instance() or QApplication(list(argv))
    window = DriveSummaryWindow(default_summary())
    window.show()
    return qt_app.exec()
