"""Entry point of the desktop application: the workbench window."""

from collections.abc import Sequence

from PySide6.QtWidgets import QApplication


def launch(argv: Sequence[str]) -> int:
    """Open the workbench on the default small drive; return Qt's exit status."""
    from ssdlab.app.gui.frame.workbench import Workbench

    qt_app = QApplication.instance() or QApplication(list(argv))
    qt_app.setApplicationName("SSD Lab")
    window = Workbench()
    window.show()
    return qt_app.exec()
