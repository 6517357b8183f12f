"""Every documented figure and attributed claim is traceable to its article.

Lesson [[sources]] and the compare tables' citations are checked against the articles'
text (../shared/seeds/NNN_*.txt beside the project: skipped with a reason where a checkout
has no seeds). Lesson text that attributes a number to a source outside {{doc:ID}} is
refused; every number a run produces is labelled simulated in the report and on screen;
the validator reports unknown articles, unknown {{doc:ID}}s and unused sources in one line.
"""

from __future__ import annotations

import ast
import re
import tomllib
import unicodedata
from pathlib import Path

import pytest
from test_lessons import GOOD

from ssdlab.lessons import LessonError, parse_lesson
from ssdlab.lessons.articles import SEEDS, articles, source_words
from ssdlab.lessons.catalogue import bundled_paths
from ssdlab.lessons.sources import DOC, _texts

ROOT = Path(__file__).resolve().parents[1]
needs_seeds = pytest.mark.skipif(not SEEDS.is_dir(), reason=f"the source articles are not "
                                 f"here ({SEEDS} is missing): nothing to check against")
EXPERIMENTS = ROOT / "ssdlab" / "model" / "lab" / "experiments.py"


def _normal(text: str) -> str:
    """Whitespace collapsed and typographic quotes made plain; nothing else changes (a
    number is matched as the article writes it)."""
    text = unicodedata.normalize("NFC", text)
    for a, b in (("’", "'"), ("‘", "'"), ("“", '"'), ("”", '"'), ("″", '"'), (" ", " ")):
        text = text.replace(a, b)
    return " ".join(text.split())


def _article(number: str) -> str:
    found = sorted(SEEDS.glob(f"{number}_*.txt"))
    assert found, f"no seed file {number}_*.txt in {SEEDS}"
    return _normal(found[0].read_text(encoding="utf-8"))


def _figure_found(text: str, figure: str, unit: str) -> bool:
    """figure as a whole number (not part of a longer one), with unit written within 300
    characters of it when the source gives a unit."""
    pattern = rf"(?<![\d.,]){re.escape(_normal(figure))}(?![\d]|[.,]\d)"
    for m in re.finditer(pattern, text, re.I if figure.isalpha() else 0):
        around = text[max(0, m.start() - 300):m.end() + 300]
        if not unit or _normal(unit) in around:
            return True
    return False


def _check(number: str, figure: str, unit: str, quote: str) -> str | None:
    text = _article(number)
    if quote:
        return None if _normal(quote) in text else f"quote {quote!r} is not in article {number}"
    if not _figure_found(text, figure, unit):
        return f"figure {figure!r} with unit {unit!r} is not in article {number}"
    return None


def _lesson_sources():
    for path in bundled_paths():
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for s in data.get("sources", []):
            yield path.name, s


@needs_seeds
def test_every_lesson_source_is_written_in_its_article():
    bad = []
    for name, s in _lesson_sources():
        problem = _check(s["article"], s.get("figure", ""), s.get("unit", ""),
                         s.get("quote", ""))
        if problem:
            bad.append(f"{name}: source {s['id']}: {problem}")
    assert not bad, "\n".join(bad)


def _cite_calls():
    """(line, article, figure, unit, quote) of each literal _cite/_quote/Cite call in the
    experiments, and how many calls take their figure from a table instead."""
    tree = ast.parse(EXPERIMENTS.read_text(encoding="utf-8"))
    literal, tabled = [], 0
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id in ("_cite", "_quote")):
            continue
        args = [a.value if isinstance(a, ast.Constant) else None for a in node.args]
        if None in args:
            tabled += 1
            continue
        if node.func.id == "_cite":
            literal.append((node.lineno, args[0], args[1], args[2], ""))
        else:
            literal.append((node.lineno, args[0], "", "", args[1]))
    return literal, tabled


def _tabled_cites():
    from ssdlab.model.lab import experiments as ex

    out = [("000", f, "s") for row in ex.VERTEX_LE_WRITTEN.values() for f in row]
    out += [("004", f, "MB/s") for f in ex.DD_873 + ex.DD_629]
    for table in [*ex.JOURNAL_TABLES.values(), ex.EXT3_TABLE]:
        for on, off, pct in table.values():
            out += [("002", on, "megabytes"), ("002", off, "megabytes"), ("002", pct, "%")]
    return out


@needs_seeds
def test_every_compare_table_figure_is_written_in_its_article():
    literal, tabled = _cite_calls()
    # the calls that read a table: the Vertex LE times, the dd runs (three), the journal
    # tables (three); a new one must be added to _tabled_cites to be checked
    assert tabled == 7, f"{tabled} citations take their figure from a table; check them here"
    bad = [f"experiments.py:{line}: {p}" for line, *cite in literal
           if (p := _check(*cite))]
    bad += [f"experiments table: {p}" for a, f, u in _tabled_cites() if (p := _check(a, f, u,
                                                                                         ""))]
    assert not bad, "\n".join(bad)


@needs_seeds
def test_article_titles_are_written_in_the_seeds():
    texts = [_normal(p.read_text(encoding="utf-8")) for p in SEEDS.glob("*.txt")]
    for a in articles().values():
        assert any(_normal(a.title) in t for t in texts), a.title
        if a.author:
            assert _normal(a.author) in _article(a.id), a.author


def test_rows_derive_their_documented_value_from_the_cited_figures():
    """Each literal Row(...) of the experiments that says how its documented value follows
    from its citations is checked here without replaying anything."""
    from ssdlab.model.lab import experiments as ex

    assert abs(sum(map(float, ex.DD_629)) / 4 - 190.5) < 1e-9
    assert abs(sum(map(float, ex.DD_873)) / 4 - 194.0) < 1e-9
    text = EXPERIMENTS.read_text(encoding="utf-8")
    for a, b in re.findall(r'"(\d+\.\d+) / (\d+\.\d+)"\)', text):
        assert f"{a} / {b}" in text.replace("\n", " ")  # the ratio is computed as written


# --- the lint: no number attributed to a source outside {{doc:ID}} ---------------------------

ATTRIBUTION = re.compile(r"\b(article|articles|documented|measured|reported|reports|the "
                         r"author|a reader|readers|the reader|the blogger|the owner|forum "
                         r"member|wrote|recorded)\b", re.I)
NUMBER = re.compile(r"(?<![A-Za-z\d.])\d+(?:[.,]\d+)*")
EXEMPT = re.compile(r"\blessons? \d+(?: (?:to|and) \d+)?|\bsteps? \d+|\bsector \d+|"
                    r"\bSATA \d(?:\.\d)?|\b\d+ (?:KiB|MiB|GiB)\b(?= (?:page|block|erase))|"
                    r"\bLinux \d+(?:\.\d+)*|\b(?:firmware|fw) \d+(?:\.\d+)?|"
                    r"\b(?:Vertex(?: LE)?|Corsair X|Agility|X25-M|Crucial M) ?\d*(?: GB)?", re.I)


def _sentences(text: str):
    return re.split(r"(?<=[.!?:;])\s+|\n\s*\n|\n- ", text)


def lint(text: str) -> list[str]:
    """Sentences that attribute a bare number to a source (not shown through {{doc:ID}},
    and not said to be simulated or this project's own recording)."""
    out = []
    for sentence in _sentences(DOC.sub("", text)):
        sentence = " ".join(sentence.split())
        low = sentence.lower()
        if "simulat" in low or "this project" in low or not ATTRIBUTION.search(sentence):
            continue
        if NUMBER.search(EXEMPT.sub("", sentence)):
            out.append(sentence)
    return out


def test_the_lint_catches_an_unreferenced_attributed_number():
    assert lint("The article measured 40.41 s for the final sync.")
    assert lint("A reader reported 1.5 s on a Crucial M4.")
    assert not lint("The article measured {{doc:sync}} for the final sync.")
    assert not lint("The simulated drive measured 3.2 here.")
    assert not lint("Lesson 4 shows what the article found.")


def test_no_lesson_attributes_a_bare_number_to_a_source():
    bad = []
    for path in bundled_paths():
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for at, text in _texts(data):
            bad += [f"{path.name}: {'.'.join(map(str, at))}: {s}" for s in lint(text)]
    assert not bad, "\n".join(bad)


def test_no_code_names_paths_or_command_lines_in_lesson_text():
    code = re.compile(r"`|ssdlab/assets/|tests/|\.toml\b|\.json\b|ssdlab |--[a-z]|\bdd bs=|"
                      r"\bsrc/|\w+_\w+\.\w+")
    bad = []
    for path in bundled_paths():
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        for at, text in _texts(data):
            if m := code.search(text):
                bad.append(f"{path.name}: {'.'.join(map(str, at))}: {m.group(0)!r}")
    assert not bad, "\n".join(bad)


# --- the validator -----------------------------------------------------------------------------

LESSON = '''format = 1
id = "cited"
title = "Cited"
order = 1
minutes = 5
summary = "A lesson with a documented figure."

[[sources]]
id = "sync"
article = "000"
figure = "40.41"
unit = "s"
claim = "final sync after rm -rf, with discard"

[[steps]]
kind = "read"
title = "Read"
text = "The final sync took {{doc:sync}}."
'''


def test_a_source_renders_as_figure_unit_and_article_in_words():
    lesson = parse_lesson(LESSON)
    assert lesson.steps[0].text == "The final sync took 40.41 s (the 2011 discard article)."
    assert lesson.sources[0].article == "000"


@pytest.mark.parametrize("change, needle", [
    (('article = "000"', 'article = "009"'), ':10: sources[0].article: must be one of the '
     'articles 000, 001, 002, 003, 004'),
    (("{{doc:sync}}", "{{doc:sink}}"), ":18: steps[0].text: {{doc:sink}} names no "
     "[[sources]] entry of this lesson (sources: sync)"),
    (("{{doc:sync}}", "forty seconds"), ":9: sources[0].id: source 'sync' is never shown"),
    (('unit = "s"\n', ''), ":8: sources[0].unit: unit is required with figure"),
    (('figure = "40.41"\nunit = "s"\n', 'figure = "40.41"\nunit = "s"\nquote = "x"\n'),
     ":11: sources[0].figure: a source gives either figure"),
    (('claim = "final sync after rm -rf, with discard"\n', ''), ":8: sources[0].claim: "
     "claim is required"),
])
def test_bad_sources_are_refused_in_one_line(change, needle):
    text = LESSON.replace(*change)
    with pytest.raises(LessonError) as e:
        parse_lesson(text, "cited.toml")
    message = str(e.value)
    assert "\n" not in message and message.startswith("cited.toml:")
    assert needle in message, message


def test_source_words_name_articles_in_words():
    assert source_words("000") == "the 2011 discard article"
    assert source_words("000 reader") == "a reader's comment on the 2011 discard article"
    assert "000" not in source_words("000/001")


# --- every number a run produced is labelled simulated ----------------------------------------

# the worked lesson of test_lessons (predict, run, reflect) with a compare and a quiz on its run
TINY = GOOD + '''
[[steps]]
kind = "compare"
title = "Model"
run = "r"
why = "both random"

[[steps]]
kind = "quiz"
title = "Quiz"
text = "WA from counts."
given = ["r.a.host_writes", "r.a.nand_writes"]
measure = "r.a.nand_writes / r.a.host_writes"
unit = "x"
'''
NOT_SIMULATED = {"configuration", "step", "spare of physical", "extra of user", "analytic WA",
                 "wall s", "figure of the run", "source", "what", "documented", "basis",
                 "rule", "agreement", "why"}


def test_every_number_a_run_produced_is_labelled_simulated_in_the_report():
    from ssdlab.lessons.player import play
    from ssdlab.lessons.report import report_text

    lesson = parse_lesson(TINY)
    text = report_text(lesson, play(lesson))
    heads = [line for line in text.splitlines() if line.startswith("| ")
             and text.splitlines()[text.splitlines().index(line) + 1].startswith("|---")]
    assert heads
    for head in heads:
        for cell in [c.strip() for c in head.strip("|").split("|")]:
            if cell not in NOT_SIMULATED and not cell.isdigit():
                assert "simulated" in cell, f"column {cell!r} of {head!r}"
    assert "WA in each tenth" not in text or "Simulated WA in each tenth" in text
    assert re.search(r"The drive did: .*simulated", text)
    assert "The run's answer: " in text and "(from the simulated run)" in text


def test_every_number_a_run_produced_is_labelled_simulated_on_screen():
    """What the window draws comes from these descriptions: chart titles, the reflection,
    the quiz's figures and the compare rows."""
    from ssdlab.lessons.charts import BLOCK_CHARTS, STEP_CHARTS, compare_pictures, run_chart
    from ssdlab.lessons.player import LessonPlay

    assert all("simulated" in title for title, *_ in [*STEP_CHARTS.values(),
                                                       *BLOCK_CHARTS.values()])
    lesson = parse_lesson(TINY)
    play = LessonPlay(lesson)
    play.predict(lesson.steps[1], 1)
    results = play.run(lesson.steps[2])
    assert "simulated" in run_chart("wa_windows", lesson.steps[2], results).title
    assert "simulated" in play.reflect(lesson.steps[3]).measured
    heading, _ = play.quiz_blocks(lesson.steps[5])[0]
    assert "simulated" in heading
    assert all(b.label == "simulated" for p in compare_pictures(play.compare(lesson.steps[4]))
               for b in p.bars[1:])
