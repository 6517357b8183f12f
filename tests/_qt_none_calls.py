"""Make many Qt calls that return nothing; exit 0 if the interpreter survives.

Run as a script (``python tests/_qt_none_calls.py [calls]``) so that a crash kills only
this process. PySide6 6.12.0 on Python 3.11 aborts here with
"Fatal Python error: none_dealloc".
"""

import os
import sys

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QCoreApplication, QObject, QTimer  # noqa: E402


def main(calls: int) -> int:
    app = QCoreApplication.instance() or QCoreApplication([])
    obj = QObject()
    timer = QTimer()
    for i in range(calls // 2):
        obj.setObjectName("drive")  # returns None
        timer.setInterval(i % 1000)  # returns None
    assert obj.objectName() == "drive"
    del timer, obj, app
    print(f"made {calls} Qt calls returning None", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000))
