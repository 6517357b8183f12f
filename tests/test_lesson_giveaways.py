"""A lesson's own text never states a question's answer before it is asked (issue 35),
checked without a window: `ssdlab lesson validate` refuses a lesson whose text before a
quiz states the quiz's recorded number, or before a fact question its right choice, and a
quiz that asks for the figure an earlier prediction measured (its "what happened" step
shows it). What counts as stating an answer is ssdlab/lessons/giveaway.py's `stated`,
which the window's test (tests/test_gui_lesson_walk.py) reads every text on screen with."""

from __future__ import annotations

from pathlib import Path

import pytest

from ssdlab.lessons import LessonError, bundled, parse_lesson
from ssdlab.lessons.giveaway import Answer, check_giveaways, numbers, stated

QUIZ_LESSON = """format = 1
id = "told"
title = "Told"
order = 1
minutes = 5
summary = "s"

[[steps]]
kind = "read"
title = "Before"
text = "READ"

[[steps]]
kind = "predict"
id = "guess"
title = "Guess"
question = "What is the write amplification?"
measure = "r.a.wa"
answer = 1
[[steps.choices]]
text = "under 3"
explain = "e"
range = [0.0, 3.0]
[[steps.choices]]
text = "3 or more"
explain = "e"
range = [3.0, 100.0]

[[steps]]
kind = "run"
id = "r"
title = "Run"
[[steps.configs]]
id = "a"
label = "a"
drive = { user_pages = 8192, pages_per_block = 32, spare = 0.08 }

[[steps]]
kind = "reflect"
title = "What happened"
predict = "guess"
text = "t"

[[steps]]
kind = "quiz"
title = "Quiz"
text = "From the counts: how many copies per page written?"
given = ["r.a.host_writes", "r.a.nand_writes"]
measure = "MEASURE"
unit = "x"
answer = "5.8"
"""


def _lesson(read: str = "Flash pages and erase blocks.",
            measure: str = "r.a.gc_copies / r.a.host_writes"):
    return parse_lesson(QUIZ_LESSON.replace("READ", read).replace("MEASURE", measure),
                        "told.toml", Path("."))


@pytest.mark.parametrize("lesson", bundled(), ids=lambda x: f"{x.order:02d}-{x.id}")
def test_no_bundled_lesson_states_an_answer_in_its_own_text(lesson):
    check_giveaways(lesson)


def test_text_that_states_a_quiz_answer_before_it_is_refused():
    check_giveaways(_lesson())
    for told in ("Each page written costs 5.8 copies.", "about 5.79 of them",
                 "A drive like this copies 5.8 pages"):
        with pytest.raises(LessonError, match=r"told\.toml:\d+: steps\[0\]\.text: text shown "
                           r"before the quiz 'Quiz' \(steps\[4\]\) must not state"):
            check_giveaways(_lesson(told))
    # a number the quiz would not accept, or a step's number, is no answer
    check_giveaways(_lesson("Lesson 5 and step 6 of 8; a WA of 6.8."))


def test_a_quiz_asking_what_a_prediction_measured_is_refused():
    """The prediction measures wa; a quiz on nand_writes / host_writes of the same drive
    asks for the same figure, which "what happened" has already shown."""
    with pytest.raises(LessonError, match=r"steps\[4\]\.measure: .*prediction 'guess' "
                       r"measured.*what happened"):
        check_giveaways(_lesson(measure="r.a.nand_writes / r.a.host_writes"))


def test_the_command_reports_a_lesson_that_gives_an_answer_away(tmp_path, capsys):
    from ssdlab.app.cli.main import main

    path = tmp_path / "told.toml"
    path.write_text(QUIZ_LESSON.replace("READ", "It copies 5.8 of them per page.")
                    .replace("MEASURE", "r.a.gc_copies / r.a.host_writes"))
    assert main(["lesson", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err and "must not state its answer; it says '5.8'" in err


def test_what_states_an_answer():
    per_cent = Answer(0, "q", (38.89,), "%", 0.02)
    for text in ("38.9 % of user", "39 %", "a fraction of 0.389", "0.39", "38.5"):
        assert stated(text, per_cent) is not None, text
    for text in ("2.6.39", "step 39 of 40", "39 s", "x39", "0.389 %", "3.9"):
        assert stated(text, per_cent) is None, text
    wa = Answer(0, "q", (7.12,), "", least_digits=3)
    assert stated("WA 7.12 here", wa) == "7.12"
    assert stated("7.2 % spare, 7.1 pages", wa) is None  # a spare; too few digits
    assert stated("(7, simulated)", Answer(0, "q", (7.0,), "")) == "7"
    assert stated("(7, simulated)", Answer(0, "q", (7.0,), "", least_digits=3)) is None
    assert stated("7 blocks", Answer(0, "q", (7.0,), "")) is None
    kib = Answer(0, "q", (69.96,), "KiB", 0.02)
    assert stated("about 70 KiB each", kib) == "70" and stated("70 pages", kib) is None
    per_trim = Answer(0, "q", (1.018,), "ms", 0.05)
    assert stated("0.95 to 1.05 times; (0.993, simulated)", per_trim) is None  # ratios
    assert stated("about 1 ms each", per_trim) == "1"
    ratio = Answer(0, "q", (0.292,), "", least_digits=3)
    assert stated("29.2 % of it", ratio) == "29.2%"
    choice = Answer(0, "q", words=("About the same",), choices=("Less", "About the same"))
    assert stated("it stayed about  the same", choice) == "About the same"
    assert stated("Less, or About the same?", choice) is None  # every choice listed
    assert stated("Higher", Answer(0, "q", words=("Higher",))) is None  # one word: any use


def test_numbers_as_a_student_reads_them():
    assert [(v, d) for v, d, _ in numbers("36,706 files, 0.30, 7.40 and 2.6.39 on ext4")] \
        == [(36706.0, 5), (0.3, 2), (7.4, 3)]
