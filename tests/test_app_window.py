"""The minimal main window shows the numbers it is given."""

from ssdlab.app.gui.frame.window import DriveSummaryWindow


def test_window_lists_each_number(qtbot):
    window = DriveSummaryWindow({"write amplification": 1.23456, "host writes": 1048576})
    qtbot.addWidget(window)
    window.show()
    assert window.windowTitle() == "SSD Lab"
    assert window.rows() == {"write amplification": "1.235", "host writes": "1,048,576"}


def test_window_replaces_rows(qtbot):
    window = DriveSummaryWindow({"a": 1, "b": 2})
    qtbot.addWidget(window)
    window.set_summary({"erases": 7})
    assert window.rows() == {"erases": "7"}
