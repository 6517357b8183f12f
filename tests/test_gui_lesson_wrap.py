"""A lesson step's wrapped words claim the height they take: at 18 pt on a 1.5x screen the
run's note took six lines counted as one, the page gave it less, and Cancel lay under the
progress bar. Here the panel is made far shorter than its words need."""

from __future__ import annotations

from _lesson_panel import at_lesson_one_run, lesson_panel
from PySide6.QtCore import QPoint


def _span(widget, page) -> tuple[int, int]:
    """Top and bottom of widget in page's coordinates, px."""
    top = widget.mapTo(page, QPoint(0, 0)).y()
    return top, top + widget.height()


def test_the_run_note_never_lies_over_cancel_or_the_bar(qtbot, until, tmp_path, monkeypatch):
    monkeypatch.setenv("SSDLAB_CONFIG_DIR", str(tmp_path))
    p = lesson_panel(qtbot)
    at_lesson_one_run(p)
    p.run_note.setText("Done: the simulation took 0.7 s, plus 12 s of watching its GCs play "
                       "slowly. Run again to watch it once more, or go on. " * 3)
    p.resize(200, 200)
    note = p.run_note

    def apart() -> bool:  # once laid out (Cancel's row wraps a layout pass later)
        cancel, bar, words = (_span(x, p.run_box) for x in (p.cancel_button, p.bar, note))
        return cancel[1] <= bar[0] and bar[1] <= words[0]

    until(lambda: note.isVisible() and note.width() > 0
          and note.height() >= note.needed_height() > 3 * note.fontMetrics().lineSpacing()
          and apart())
