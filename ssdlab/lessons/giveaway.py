"""Give-aways: words or a number a student can read before a question that state its answer.

A lesson asks before it shows (predict, then run; a quiz on figures the student works out).
Anything on screen before the answer is given that states it turns the question into
copying: a number the step measures, rounded as a student would see it (38.9, 39 or 0.389
for 38.89 %), a number the quiz would accept (within its tolerance), or the right choice's
own words where the other choices are not listed beside it.

`answers(play)` lists each question's answer from a played lesson (the window's test reads
every text on screen before each question against it: tests/test_gui_lesson_walk.py);
`stated(text, answer)` says what in a text states it. `check_giveaways(lesson)` is the part
that needs no run (`ssdlab lesson validate`): a quiz whose recorded number, or a fact
question whose right choice, the lesson's own text states before it, and a quiz that asks
for the very figure an earlier prediction measured, whose "what happened" step shows it.
No Qt.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .lesson import Lesson, LessonError, Measure

# digits, with thousands commas, an optional fraction; not inside a word ("x25m", "ext4")
# nor a version ("2.6.39")
NUMBER = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d+))?(?![\d]|\.\d)")
ORDINAL = re.compile(r"\b(?:step|steps|lesson|lessons)\s+$", re.I)  # before a number
LISTED = re.compile(r"\.\s+[A-Z]")  # after a whole number: "14. Idle time"
# what after a number marks it as a figure even when it has one digit ("1, simulated")
MARKS = (", simulated", " (simulated", " x ", " x)", " x.", " x,", "×", " times")
# a number marked as having no unit: a ratio, or a result printed without one
UNITLESS = (" times", " x ", " x)", " x.", " x,", "×", ", simulated", " (simulated")
# a unit after a number: "1.0 s" is no answer in ms, "15 min" no share in per cent
UNIT = re.compile(r"^\s?(ms|s|min|minutes|seconds|MB/s|MB|GB|GiB|MiB|KiB|kB|KB|k|req/s)\b")


@dataclass(frozen=True)
class Answer:
    """What states a question's answer. step: the question's index in the lesson; values:
    numbers that state it (unit "%": also as a fraction); tolerance: a number this close
    (a fraction of it) states it too; words: texts that state it unless every choice of
    choices is listed beside them."""

    step: int
    what: str
    values: tuple[float, ...] = ()
    unit: str = ""
    tolerance: float = 0.0
    words: tuple[str, ...] = ()
    choices: tuple[str, ...] = ()
    # fewer significant digits than this do not state it (a prediction's figure, 6.79, is
    # told by its digits, while "2.00" or "step 17" are everywhere), but for a quiz's
    # figure marked as a result ("1, simulated"): its 39 for 38.89 % is typed as read
    least_digits: int = 2


def significant(value: float, digits: int) -> float:
    if value == 0 or not math.isfinite(value):
        return value
    return round(value, digits - 1 - math.floor(math.log10(abs(value))))


def numbers(text: str):
    """(value, significant digits, the text right after it) for each number in text; not
    a step's or lesson's number ("left at step 17", "14. Idle time")."""
    for m in NUMBER.finditer(text):
        if ORDINAL.search(text, 0, m.start()) or (m.group(2) is None
                                                  and LISTED.match(text, m.end())):
            continue
        whole, frac = m.group(1).replace(",", ""), m.group(2)
        if frac is not None:
            digits = len((whole + frac).lstrip("0"))
            value = float(f"{whole}.{frac}")
        else:
            digits = max(1, len(whole.strip("0")))
            value = float(whole)
        yield value, digits, text[m.end():m.end() + 16]


def _forms(answer: Answer):
    """(value, per cent) each answer value may be written as: per cent True, it must be
    followed by %; False, it must not; None, either. A ratio (no unit, or "x") may be
    written in per cent, a per cent as a fraction."""
    for v in answer.values:
        if not math.isfinite(v) or v == 0:
            continue
        yield v, None
        if answer.unit == "%":
            yield v / 100, False
        elif answer.unit in ("", "x"):
            yield 100 * v, True


def _states(value: float, digits: int, after: str, form: float, answer: Answer,
            converted: bool) -> bool:
    """Whether a number with this many significant digits, followed by after, states the
    answer form (converted: a ratio written in per cent, or a per cent as a fraction)."""
    close = abs(value - form) <= answer.tolerance * abs(form)
    if digits >= answer.least_digits:
        # as rounded; or close enough for the quiz, where precise enough to be a result
        return math.isclose(value, significant(form, digits), rel_tol=1e-9) or (
            close and digits >= 3)
    # few digits ("1", "0.3", "17") are everywhere in a lesson: only a figure shown as a
    # result ("1, simulated"), or in the answer's own unit ("70 KiB") where it has one; a
    # prediction's band is told only by a precise figure (another question's "1,
    # simulated" says nothing of its "about the same")
    if answer.least_digits > 2:
        return False
    if answer.unit in ("", "x", "%"):
        marked = after.startswith(MARKS)
    else:
        marked = after.lstrip().startswith(answer.unit)
    return not converted and marked and (close or abs(value - form) <= 0.02 * abs(form))


def stated(text: str, answer: Answer, at_least: int = 1) -> str | None:
    """The part of text that states the answer, or None. at_least: numbers with fewer
    significant digits are not read (an axis's round ticks state no measured figure)."""
    flat = " ".join(text.split())
    low = flat.lower()
    listed = len(answer.choices) > 1 and all(
        " ".join(c.split()).lower() in low for c in answer.choices)
    for words in answer.words:
        # a one-word choice ("Higher", "FIFO") is every mention of the word, not the answer
        if len(words.split()) > 1 and " ".join(words.split()).lower() in low \
                and not listed:
            return words
    for value, digits, after in numbers(flat):
        unit = UNIT.match(after)
        if digits < at_least or (unit is not None and unit.group(1) != answer.unit):
            continue
        if answer.unit not in ("", "x", "%") and after.startswith(UNITLESS):
            continue  # "1.05 times", "(0.993, simulated)": a ratio, not 1.02 ms
        per_cent = after.lstrip().startswith(("%", "per cent", "percent"))
        for form, need in _forms(answer):
            # "7.2 %" next to a write amplification of 7.2 is a spare, not the answer
            if (need is not None and need != per_cent) or (
                    need is None and per_cent and answer.unit != "%"):
                continue
            if _states(value, digits, after, form, answer, need is not None):
                return f"{value:g}" + ("%" if per_cent else "")
    return None


def asked_drives(lesson: Lesson, index: int, answered) -> list:
    """The drives (ssdlab.model.flash.geometry.Geometry) whose spare a question still open
    at step index asks for, as extra of user or as a share of physical: a prediction not
    yet made, or a quiz at or after index. A window showing one of these drives does not
    print the other definition beside it: lesson 2's control panel said "28.0 % of
    physical = 38.9 % of user capacity" at every step before the quiz that asks for 38.9."""
    out = []
    for i, step in enumerate(lesson.steps):
        m = getattr(step, "measure", None)
        still = (step.kind == "predict" and step.id not in answered) or (
            step.kind == "quiz" and i >= index)
        if m is None or not still:
            continue
        for one in (m, m.over):
            if one is None or one.figure not in ("extra_of_user", "spare"):
                continue
            run = lesson.step_of(one.run)
            out += [c.spec.geometry for c in run.configs
                    if c.spec is not None and one.config in (c.id, "*")]
    return out


def _model_of(m: Measure, play) -> tuple[float, ...]:
    """The published model's figures for a block-level WA a prediction asks for: the lesson
    shows them beside the run (compare), so they state its answer as well as the run does."""
    if m.over is not None or m.figure != "wa":
        return ()
    figures = play.figures()[m.run][m.config]
    return tuple(figures[k] for k in ("theory_wa_usable", "theory_wa") if k in figures
                 and math.isfinite(figures[k]))


def answers(play) -> list[Answer]:
    """Each question's answer, from a ssdlab.lessons.player.LessonPlay whose runs are all
    played: what a prediction measured (and its right choice), a quiz's right number or
    the operations its tiny drive did."""
    lesson, out = play.lesson, []
    for i, step in enumerate(lesson.steps):
        texts = tuple(c.text for c in getattr(step, "choices", ()))
        if step.kind == "predict":
            what = f"the prediction {step.id!r}"
            words = (texts[play.right_choice(step)],) if step.choices else ()
            values = ()
            if step.measure is not None and not step.rule:  # a rule's answer is a choice
                values = (play.measured(step), *_model_of(step.measure, play))
            out.append(Answer(i, what, values, step.unit, words=words, choices=texts,
                              least_digits=3))
        elif step.kind == "quiz":
            what = f"the quiz {step.title!r}"
            q = play.quiz(step)
            if step.measure is not None:
                out.append(Answer(i, what, (q.value,), step.unit, step.tolerance))
            elif step.ask == "wa":
                from .counterquiz import TOLERANCE

                out.append(Answer(i, what, (q.truth.wa,), "x", TOLERANCE))
            else:
                out.append(Answer(i, what, words=(q.truth.text(),)))
    return out


def _shown_before(lesson: Lesson, upto: int):
    """(where, text) of what the lesson's own text puts on screen up to step upto, whose
    own title and text come last: the lesson's title and summary, and each step's title,
    text, question, choices and their explanations, configuration labels and reasons."""
    yield "title", lesson.title
    yield "summary", lesson.summary
    for i, s in enumerate(lesson.steps[:upto + 1]):
        at = f"steps[{i}]"
        yield f"{at}.title", s.title
        for key in ("text", "question", "varies", "why"):
            value = getattr(s, key, "")
            if value:
                yield f"{at}.{key}", value
        for j, c in enumerate(getattr(s, "choices", ()) if i < upto else ()):
            yield f"{at}.choices[{j}].explain", c.explain  # shown after its run
        for j, c in enumerate(getattr(s, "configs", ())):
            yield f"{at}.configs[{j}].label", c.label


_STEP_FLASH = re.compile(r"^steps\[(\d+)\]\.nand_written_mb$")


def _canonical(m: Measure) -> tuple:
    """A measure as (run, config, figure, the figure it is over): a write amplification
    written as flash over host writes reads as the same figure as wa."""
    top = (m.run, m.config, m.figure)
    if m.over is None:
        return (*top, None)
    below = (m.over.run, m.over.config, m.over.figure)
    if top[:2] == below[:2]:
        if (top[2], below[2]) == ("nand_writes", "host_writes"):
            return (*top[:2], "wa", None)
        step = _STEP_FLASH.match(top[2])
        if step and below[2] == f"steps[{step.group(1)}].device_written_mb":
            return (*top[:2], f"steps[{step.group(1)}].wa", None)
    return (*top, below)


def check_giveaways(lesson: Lesson) -> None:
    """LessonError (file, line, field) for the first give-away the lesson's text makes
    before a question: a quiz's recorded number or a fact question's right choice stated
    before it is answered, or a quiz asking for a figure an earlier prediction measured
    (its "what happened" shows it)."""
    from .counterquiz import TOLERANCE
    from .runquiz import parse_number

    measured = {}
    for q, step in enumerate(lesson.steps):
        if step.kind == "predict" and step.measure is not None and not step.rule:
            measured.setdefault(_canonical(step.measure), step)
        answer = None
        if step.kind == "quiz" and step.answer and (step.measure is not None
                                                   or step.ask == "wa"):
            unit = step.unit if step.measure is not None else "x"
            tolerance = step.tolerance if step.measure is not None else TOLERANCE
            answer = Answer(q, f"the quiz {step.title!r}", (parse_number(step.answer),),
                            unit, tolerance)
            asked = measured.get(_canonical(step.measure)) if step.measure else None
            if asked is not None:
                raise LessonError(
                    f"{lesson.path or '<lesson>'}:{step.line}: steps[{q}].measure: a quiz "
                    f"asks for a figure the student has not been shown; "
                    f"{step.measure.text!r} is what the prediction {asked.id!r} measured, "
                    "and its \"what happened\" step shows it")
        elif step.kind == "predict" and step.measure is None and step.choices:
            right = next(c.text for c in step.choices if c.correct)
            answer = Answer(q, f"the prediction {step.id!r}", words=(right,),
                            choices=tuple(c.text for c in step.choices))
        if answer is None:
            continue
        for where, text in _shown_before(lesson, q):
            if where.startswith(f"steps[{q}].") and step.kind == "predict" \
                    and not where.endswith(".title"):
                continue  # the question itself, and its choices, listed
            said = stated(text, answer)
            if said is not None:
                line = lesson.steps[int(where[6:where.index("]")])].line \
                    if where.startswith("steps[") else 1
                raise LessonError(
                    f"{lesson.path or '<lesson>'}:{line}: {where}: text shown before {answer.what} "
                    f"(steps[{q}]) must not state its answer; it says {said!r}")
