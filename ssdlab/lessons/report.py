"""A played lesson as a Markdown report: each step's text, the recorded predictions, every
run's figures and chart data, each compare table (documented beside simulated, the rule,
the reason) and the quiz. Written to a temporary name and renamed, so a failed run never
destroys an earlier report.
"""

from __future__ import annotations

import math
import re

from ssdlab.model.host.profiles import ProfileError, load_profile

from .articles import source_words
from .charts import STEP_CHARTS, documented_words, step_words
from .glossary import plain
from .lesson import Lesson
from .player import ConfigResult, StepRecord
from .references import image_folders
from .runquiz import RunQuiz, number

# chart -> (column heading, StepResult figure), from the charts the window draws
STEP_COLUMNS = {name: (f"{label} ({unit})", figure)
                for name, (_, label, unit, figure) in STEP_CHARTS.items()}


def _num(value: float) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if abs(value) >= 100 or float(value).is_integer():
        return f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.0f}"
    return f"{value:.3g}"


def _table(head: list[str], rows: list[list[str]]) -> list[str]:
    clean = [[c.replace("|", "\\|").replace("\n", " ") for c in row] for row in rows]
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + [
        "| " + " | ".join(r) + " |" for r in clean]


def _block_run(results: list[ConfigResult]) -> list[str]:
    # a zoned drive's host does the garbage collection: its copies get a column of their own
    zoned = any(r.config.spec is not None and r.config.spec.zoned for r in results)
    rows = [[r.config.label, f"{100 * r.figures['spare']:.1f} %",
             f"{100 * r.figures['extra_of_user']:.1f} %", _num(r.figures["wa"]),
             _num(r.figures["theory_wa_usable"]), _num(r.figures["gc_copies"]),
             *([_num(r.figures["host_copies"])] if zoned else []),
             _num(r.figures["erases"]), f"{r.wall_seconds:.1f}"] for r in results]
    copies = (["drive's GC copies (simulated)", "host's copies (simulated)"] if zoned
              else ["GC copies (simulated)"])
    out = _table(["configuration", "spare of physical", "extra of user", "WA (simulated)",
                  "analytic WA", *copies, "erases (simulated)", "wall s"], rows)
    windows = max(len(r.wa_windows) for r in results)
    out += ["", "Simulated WA in each tenth of the measured writes (the chart's curves):", ""]
    out += _table(["configuration"] + [str(i + 1) for i in range(windows)],
                  [[r.config.label] + [_num(w) for w in r.wa_windows] for r in results])
    return out


def _drive_name(profile: str) -> str:
    """A device profile's display name ("OCZ Vertex LE 100 GB (...)"), not its file name."""
    try:
        return load_profile(profile).name
    except ProfileError:  # a profile the shipped folder does not hold: its name as given
        return profile


def _pictures(text: str, lesson: Lesson) -> str:
    """A step's pictures, ![alt](assets/...), linked by their full path: the report is
    written elsewhere, and a link relative to the lesson would lead nowhere from there."""
    folders = image_folders(lesson.path.parent if lesson.path else None)

    def one(m: re.Match) -> str:
        found = [f / m.group(2) for f in folders if (f / m.group(2)).is_file()]
        return f"![{m.group(1)}]({found[0].resolve().as_uri()})" if found else m.group(0)

    return re.sub(r"!\[([^\]]*)\]\(([^)\s]+)\)", one, text)


def _scenario_run(results: list[ConfigResult], charts: tuple[str, ...]) -> list[str]:
    cols = [STEP_COLUMNS[c] for c in charts] or [STEP_COLUMNS["step_seconds"]]
    out = []
    for r in results:
        s = r.config.scenario
        out += [f"**{r.config.label}**: {_drive_name(s.profile)}, partition at sector "
                f"{s.partition.start_sector}, journal {'on' if s.fs.journal else 'off'}, "
                f"atime {s.fs.atime}, discard {'on' if s.fs.discard else 'off'} "
                f"(wall time {r.wall_seconds:.1f} s)", ""]
        rows = [[f"{i}: {step_words(st.name)}"] + [_num(st.as_dict()[key]) for _, key in cols]
                for i, st in enumerate(r.steps)]
        out += _table(["step"] + [f"{h}, simulated" for h, _ in cols], rows) + [""]
    return out


def _compare(rows) -> list[str]:
    body = []
    for r in rows:
        # documented figures as the source printed them; simulated ones to 3 figures
        doc = documented_words(r)
        body.append([source_words(r.source), f"{r.experiment}: {r.quantity}", doc,
                     f"{_num(r.simulated)} {r.unit} (simulated)", r.basis, r.check,
                     "agrees" if r.agrees else "differs", r.why])
    return _table(["source", "what", "documented", "simulated", "basis", "rule", "agreement",
                   "why"], body)


def report_text(lesson: Lesson, records: list[StepRecord]) -> str:
    out = [f"# Lesson {lesson.order}: {lesson.title}", "", plain(lesson.summary), "",
           f"About {lesson.minutes} minutes. Played headless: every prediction was answered "
           "with the lesson's recorded answer.", ""]
    for rec in records:
        s = rec.step
        out += [f"## Step {rec.index + 1}: {s.title} ({s.kind})", ""]
        if s.kind == "read":
            out += [_pictures(plain(s.text), lesson), ""]
        elif s.kind == "predict":
            out += [plain(s.question), ""]
            if s.choices:
                out += [f"{j + 1}. {plain(c.text)}" for j, c in enumerate(s.choices)]
                out += ["", f"Recorded answer: {int(s.answer) + 1}."]
            else:
                out += [f"Recorded estimate: {s.answer:g} {s.unit}."]
            out += [""]
        elif s.kind == "run":
            out += ([plain(s.text), ""] if s.text else [])
            if s.varies:
                out += [f"What varies: {s.varies}.", ""]
            if rec.results and rec.results[0].config.spec is not None:
                out += _block_run(rec.results)
            else:
                out += _scenario_run(rec.results, s.charts)
            out += ["", f"Wall time of this run step: {rec.wall_seconds:.1f} s.", ""]
        elif s.kind == "compare":
            out += ([plain(s.text), ""] if s.text else []) + _compare(rec.rows) + [""]
        elif s.kind == "reflect":
            r = rec.reflection
            out += [f"You predicted: {plain(r.predicted)}. The drive did: {plain(r.measured)}"
                    f" ({'right' if r.right else 'not what was predicted'}).", ""]
            for e in r.explanation:
                out += [plain(e), ""]
            out += [plain(s.text), ""]
        elif s.kind == "quiz":
            q = rec.quiz
            out += [plain(s.text), ""]
            if isinstance(q, RunQuiz):
                out += _table(["figure of the run", "value (simulated)"],
                              [[g.label, number(g.value)] for g in q.given])
                out += ["", f"The run's answer: {q.truth_text()}."]
            else:
                out += [f"Seed {q.seed}."]
                for heading, block in q.panels():
                    out += ["", f"{heading}:", "", "```", block, "```"]
                out += ["", f"The engine: {q.truth.text()}."]
            out += ["", "The working:", ""] + [f"- {line}" for line in q.shown_answer()
                                               .splitlines()[1:]] + [""]
            if rec.verdict is not None:
                out += [f"Recorded answer: {s.answer} ("
                        + ("right" if rec.verdict.correct else
                           "wrong: " + "; ".join(rec.verdict.feedback)) + ")."]
            out += [""]
    return "\n".join(out).rstrip() + "\n"
