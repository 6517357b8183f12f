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
from ssdlab.lessons.sourcelint import problems
from ssdlab.lessons.sources import _texts

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


def _figure_at(text: str, figure: str, unit: str) -> list[int]:
    """Where figure is written as a whole number (not part of a longer one), with unit
    written within 300 characters of it when the source gives a unit."""
    pattern = rf"(?<![\d.,]){re.escape(_normal(figure))}(?![\d]|[.,]\d)"
    return [m.start() for m in re.finditer(pattern, text, re.I if figure.isalpha() else 0)
            if not unit or _normal(unit) in text[max(0, m.start() - 300):m.end() + 300]]


def _comments_start(number: str, text: str) -> int:
    """Where the readers' comments begin in the article's text (its end when it has none)."""
    marker = articles()[number].comments_from
    if not marker:
        return len(text)
    at = text.find(_normal(marker))
    assert at >= 0, f"article {number}: comments_from {marker!r} is not in its text"
    return at


def _check(number: str, figure: str, unit: str, quote: str, by: str = "") -> str | None:
    """Whether the figure or quote is written in the article, and, when by says who said it,
    in the author's own text ("author") or in the comments ("author-reply", "reader")."""
    text = _article(number)
    if quote:
        at = [m.start() for m in re.finditer(re.escape(_normal(quote)), text)]
        if not at:
            return f"quote {quote!r} is not in article {number}"
    else:
        at = _figure_at(text, figure, unit)
        if not at:
            return f"figure {figure!r} with unit {unit!r} is not in article {number}"
    if by:
        start = _comments_start(number, text)
        body = by == "author"
        if not any((a < start) == body for a in at):
            return (f"{quote or figure!r} is said by = {by!r}, but article {number} has it "
                    f"only {'in the comments' if body else 'in the author' + chr(39) + 's text'}")
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
                         s.get("quote", ""), s.get("by", "author"))
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


# --- the lint: every attribution shows its source through {{doc:ID}} -------------------------

def lint(text: str, quoted: dict | None = None) -> list[str]:
    return [sentence for sentence, _ in problems(text, quoted)]


@pytest.mark.parametrize("text", [
    "The article measured 40.41 s for the final sync.",
    "A reader reported 1.5 s on a Crucial M4.",
    "The author ran the test seven times.",
    "A reader's drive wrote twice as fast after fstrim.",
    "The article's sync took a third of the time.",
    "His drive was written over a dozen times.",
    "A reader reported that discard is slow on his drive.",
    "The author found that fstrim helps.",
    "The article says TRIM is a non-queued command.",
    "The owner measured his drive again in January.",
    "A reader thought the drive ignores every TRIM.",
])
def test_the_lint_catches_an_attribution_without_its_source(text):
    assert lint(text), text


@pytest.mark.parametrize("text", [
    "The article measured {{doc:sync}} for the final sync.",
    "The simulated drive measured 3.2 here.",
    "Lesson 4 shows what the article found.",
    "Nobody in the thread measured it.",
    "The article does not say how much its tests wrote, so a quarter is assumed.",
    "The author of the posts lined up three things with the erase block {{doc:align}}.",
    "Between the two states the computer wrote some pages.",
    "The Norwegian author measured it (lesson 5).",
    "A drive that has been told the space is free uses it.",
])
def test_the_lint_lets_through_what_is_not_an_unsourced_attribution(text):
    assert not lint(text), text


def test_a_number_the_citation_itself_holds_is_the_sources():
    text = "He averaged three runs each way {{doc:runs}}."
    assert lint(text)  # which source holds "three" is not known
    assert not lint(text, {"runs": "I did it three times with and three times without"})
    assert lint(text, {"runs": "I did it twice"})
    # a digit is matched whole: "6" is not in "36706"
    assert lint("The article counted 6 files {{doc:files}}.", {"files": "36706"})


def test_no_bundled_lesson_attributes_without_its_source():
    bad = []
    for path in bundled_paths():
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        quoted = {s["id"]: s.get("quote") or s.get("figure") for s in data.get("sources", [])}
        for at, text in _texts(data):
            bad += [f"{path.name}: {'.'.join(map(str, at))}: {s}" for s in lint(text, quoted)]
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize("planted, what", [
    ("The author ran it seven times.", "even in words ('seven')"),
    ("The author ran it on 95 GB.", "a number from a source is shown only as {{doc:ID}}"),
    ("A reader reported that it was slower.", "says what a source reported carries"),
])
def test_a_planted_attribution_is_refused_naming_lesson_step_and_sentence(planted, what):
    text = LESSON.replace("took {{doc:sync}}.", "took {{doc:sync}}. " + planted)
    with pytest.raises(LessonError) as e:
        parse_lesson(text, "cited.toml")
    message = str(e.value)
    assert "\n" not in message
    assert message.startswith("cited.toml:18: steps[0].text: step 1 ('Read'): "), message
    assert what in message and repr(planted) in message, message


def test_validate_names_the_lesson_step_and_sentence_of_a_planted_claim(tmp_path, capsys):
    from ssdlab.app.cli.main import main

    original = ROOT / "ssdlab" / "lessons" / "14_idle_time.toml"
    text = original.read_text(encoding="utf-8")
    old = "the drive's TRIM work came inside the sync after a delete."
    assert old in text
    path = tmp_path / original.name
    path.write_text(text.replace(old, old + " The author found it took a minute."), "utf-8")
    assert main(["lesson", "validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"ssdlab lesson: error: {path}:"), err
    assert "step 7 (" in err and "'The author found it took a minute.'" in err, err
    assert main(["lesson", "validate", *map(str, bundled_paths())]) == 0


def test_no_code_names_paths_or_command_lines_in_lesson_text():
    code = re.compile(r"`|ssdlab/assets/|tests/|\.toml\b|\.json\b|ssdlab |--[a-z]|\bdd bs=|"
                      r"\bsrc/|\w+_\w+\.\w+|\b[a-z]+_[a-z0-9_]+\b")
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


def test_a_source_renders_as_figure_unit_and_who_said_it_in_words():
    lesson = parse_lesson(LESSON)
    assert lesson.steps[0].text == ("The final sync took 40.41 s (the author of the 2011 "
                                    "discard article).")
    assert lesson.sources[0].article == "000" and lesson.sources[0].by == "author"


VOICES = LESSON.split("[[steps]]")[0] + '''
[[sources]]
id = "before"
article = "000"
figure = "0.17"
unit = "s"
claim = "final sync without discard"

[[sources]]
id = "m4"
article = "000"
figure = "1.541"
unit = "s"
claim = "a reader's Crucial M4"
by = "reader"

[[sources]]
id = "guess"
article = "000"
quote = "Better firmware I suppose?"
claim = "the reader's guess"
by = "reader"

[[sources]]
id = "trm"
article = "003"
quote = "Som man ser hjelper ikke dette i særlig grad"
claim = "discard did not help much"
translation = "as you can see, this does not help much"

[[steps]]
kind = "read"
title = "Read"
text = """
It took {{doc:sync}} with discard and {{doc:before}} without; a reader's M4 took {{doc:m4}},
and he guessed why {{doc:guess}}. Back to the author: {{doc:sync}}.

A new paragraph names its source again: {{doc:before}}. Norwegian: {{doc:trm}}.
"""
'''


def test_a_paragraph_names_each_voice_once_per_run_of_its_citations():
    text = parse_lesson(VOICES).steps[0].text
    first, second = text.split("\n\n")
    author = "(the author of the 2011 discard article)"
    reader = "(a reader's comment on the 2011 discard article"
    assert first.count(author) == 2 and first.count(reader) == 1, first
    # the run of the author's figures names him at its first; the reader's run at its first
    assert "It took 40.41 s (the author of the 2011 discard article) with discard and 0.17 s " \
           "without" in first
    assert "took 1.541 s (a reader's comment on the 2011 discard article),\nand he guessed " \
           "why (“Better firmware I suppose?”)" in first
    # a voice named again after another spoke
    assert first.endswith("Back to the author: 40.41 s (the author of the 2011 discard "
                          "article).")
    assert second.startswith("A new paragraph names its source again: 0.17 s (the author "
                             "of the 2011 discard article).")
    assert ("(Roy Dragseth, in the Norwegian degradation article: “Som man ser hjelper ikke "
            "dette i særlig grad”, in our translation “as you can see, this does not help "
            "much”)") in second


def test_no_bundled_paragraph_names_one_voice_twice_in_a_row():
    """The rule holds in the bundled lessons as shown: lesson 4's fstrim paragraph once
    named the 2011 discard article seven times; now the author once and the reader once."""
    from ssdlab.lessons import bundled
    from ssdlab.lessons.articles import speaker

    names = {speaker(a, by) for a in articles() for by in ("author", "author-reply", "reader")}
    # longest first: "the author of X" is the start of "the author of X, answering a reader"
    names = sorted(names - {""}, key=len, reverse=True)
    for lesson in bundled():
        for step in lesson.steps:
            for paragraph in (getattr(step, "text", "") or "").split("\n\n"):
                said = re.findall("|".join(re.escape(f"({n}") for n in names), paragraph)
                assert all(a != b for a, b in zip(said, said[1:], strict=False)), paragraph
    trim = next(x for x in bundled() if x.id == "trim")
    fstrim = next(s for s in trim.steps if s.title == "fstrim instead").text
    first = fstrim.split("\n\n")[0]
    assert first.count("the author of the 2011 discard article") == 1, first
    assert first.count("a reader's comment on the 2011 discard article") == 1, first


@needs_seeds
def test_the_seed_check_knows_the_author_from_a_reader():
    assert _check("000", "", "", "Better firmware I suppose?", "reader") is None
    assert "only in the comments" in _check("000", "", "", "Better firmware I suppose?",
                                            "author")
    assert "only in the author's text" in _check("000", "40.41", "s", "", "reader")
    assert _check("004", "334.67", "Requests/sec", "", "author-reply") is None


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
    (('unit = "s"\n', 'unit = "s"\nby = "someone"\n'), ":13: sources[0].by: must be one of "
     "author, author-reply, reader; got 'someone'"),
    (('article = "000"', 'article = "002"'), None),  # the ext4 posts: the author only
    (('article = "000"\nfigure = "40.41"\nunit = "s"\n', 'article = "003"\nquote = "Dato"\n'),
     ":8: sources[0].translation: article 003 is not in English: a quote from it carries "
     "translation"),
    (('unit = "s"\n', 'unit = "s"\ntranslation = "forty"\n'), ":13: sources[0].translation: "
     "only a quote from an article not in English has a translation"),
])
def test_bad_sources_are_refused_in_one_line(change, needle):
    text = LESSON.replace(*change)
    if needle is None:  # fine as it is; by = "reader" is not: the ext4 posts have no readers
        parse_lesson(text, "cited.toml")
        text = text.replace('unit = "s"\n', 'unit = "s"\nby = "reader"\n')
        needle = ":13: sources[0].by: article 002 has no readers"
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
