"""What the source check can see without reading for meaning: a sentence that gives a source's
number, or says what a source reported, shows that source through {{doc:ID}}.

The loader refuses lesson text where

- a sentence naming a source (the article, its author, a reader, the owner...) holds a
  number outside {{doc:ID}}: written in digits ("40 s") or in words ("seven times", "twice",
  "a third");
- a sentence says what a source reported, found, showed, measured or said, with no
  {{doc:ID}} in it: every attributed claim carries the source's own words or figure.

Not refused: sentences about the simulation ("simulated", "this project"), sentences that
say a source does not give something ("the article does not say"), pointers to another
lesson ("the owner measured it (lesson 5)": the claim is cited there), and numbers that
name things rather than measure them (lesson 4, sector 63, Linux 2.6.37, an X25-M).
tests/test_lesson_sources.py checks, where the articles are at hand, that every figure and
quote is written in its article, and what a reader said in the comments.
"""

from __future__ import annotations

import re

from .fields import Reader
from .sources import DOC, _texts

# who a claim can be attributed to
SUBJECT = re.compile(r"\b(?:articles?|article's|documented|the author|author's|an? (?:reader|"
                     r"commenter|user(?! space)|reviewer|forum (?:member|reply))|readers?|"
                     r"reader's|commenters?|the (?:user(?! space)|owner|blogger|reviewer|"
                     r"developer)|owner's|"
                     r"user's|developer's|forum|he|his)\b", re.I)
# verbs that report what a source said or measured
REPORTS = re.compile(r"\b(?:report(?:s|ed)|found|showed|measur(?:es|ed)|says|said|wrote|"
                     r"conclude[sd]|noted|pointed out|argue[sd]|(?<!been )(?<!was )told|guesse[sd]|"
                     r"expected|hoped|"
                     r"recommend(?:s|ed)|timed|counted|thought|believed|explained|suspected|"
                     r"claimed|stated|mentioned|replied|answered|added|according to)\b", re.I)
# a number is attributed by a subject, or by these words alone ("the documented 40 s")
ATTRIBUTION = re.compile(f"{SUBJECT.pattern}|\\b(?:documented|measured|reported|reports|"
                         "recorded)\\b", re.I)
DIGITS = re.compile(r"(?<![A-Za-z\d.])\d+(?:[.,]\d+)*")
WORDS = re.compile(r"\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|"
                   r"(?:thir|four|fif|six|seven|eigh|nine)teen|twenty|thirty|forty|fifty|"
                   r"sixty|seventy|eighty|ninety|hundreds?|thousands?|millions?|dozens?|"
                   r"twice|thrice|double[sd]?|triple[sd]?|halve[sd]?|half|"
                   r"(?:a|one|two) (?:third|quarter|fifth|tenth)s?)\b", re.I)
# numbers that name a thing rather than measure it
EXEMPT = re.compile(r"\blessons? \d+(?: (?:to|and) \d+)?|\bsteps? \d+|\bsector \d+|"
                    r"\bSATA \d(?:\.\d)?|\b\d+ (?:KiB|MiB|GiB)\b(?= (?:page|block|erase))|"
                    r"\bLinux \d+(?:\.\d+)*|\b(?:firmware|fw) \d+(?:\.\d+)?|"
                    r"\b(?:Vertex(?: LE)?|Corsair X|Agility|X25-M|Crucial M) ?\d*(?: GB)?|"
                    r"\b(?:two|three|four|five|six) (?:ways|steps|parts|lessons|kinds|things)\b",
                    re.I)
SIMULATED = re.compile(r"simulat|this project|SSD Lab", re.I)
NEGATED = re.compile(r"\bno article|\bnone of the|\bnobody\b|\bneither\b|\bnot something\b|"
                     r"\b(?:does|do|did) not (?:say|give|measure|tell)", re.I)
# a pointer to the lesson that cites the claim ("what the article found: lesson 4")
POINTER = re.compile(r"\blessons? \d+\b", re.I)


def _clauses(text: str):
    """Clauses: a number belongs to the claim of its own clause."""
    return re.split(r"(?<=[.!?:;])\s+|(?<=[.!?:;][)\"”])\s+|\n\s*\n|\n- ", text)


def _sentences(text: str):
    """Whole sentences: a claim's {{doc:ID}} may come after a colon."""
    return re.split(r"(?<=[.!?])\s+|(?<=[.!?][)\"”])\s+|\n\s*\n|\n- ", text)


def _exempt(sentence: str) -> bool:
    return bool(SIMULATED.search(sentence) or NEGATED.search(sentence))


def _cited(clause: str, quoted: dict[str, str]) -> str:
    """The words of the sources a clause cites: a number they hold is shown by them."""
    return " ".join(quoted.get(name.strip(), "") for name in DOC.findall(clause)).lower()


def _holds(cited: str, token: str) -> bool:
    """Whether the cited words hold the number token whole ("6" is not in "36706")."""
    return bool(re.search(rf"(?<![\w.]){re.escape(token.lower())}(?![\w]|[.,]\d)", cited))


def problems(text: str, quoted: dict[str, str] | None = None) -> list[tuple[str, str]]:
    """(sentence, what is wrong) for each sentence of text the check refuses. quoted maps a
    source id to its figure or quote: a number the clause's own citation holds ("he averaged
    three runs {{doc:runs}}", the quote saying "three times") is the source's, not bare."""
    out = []
    for clause in _clauses(text):
        clause = " ".join(clause.split())
        bare = EXEMPT.sub("", DOC.sub("", clause))
        if _exempt(clause) or not ATTRIBUTION.search(bare):
            continue
        cited = _cited(clause, quoted or {})
        digits = [m for m in DIGITS.findall(bare) if not _holds(cited, m)]
        words = [m for m in WORDS.findall(bare) if not _holds(cited, m)]
        if digits:
            out.append((clause, "a number from a source is shown only as {{doc:ID}} (or "
                        "said to be simulated)"))
        elif words and (m := WORDS.search(" ".join(words))):
            out.append((clause, f"a number from a source, even in words ({m.group(0)!r}), "
                        "is shown only as {{doc:ID}} (or said to be simulated)"))
    for sentence in _sentences(text):
        sentence = " ".join(sentence.split())
        if (DOC.search(sentence) or _exempt(sentence) or POINTER.search(sentence)
                or not SUBJECT.search(sentence) or not (m := REPORTS.search(sentence))):
            continue
        out.append((sentence, f"a sentence that says what a source {m.group(0)} carries the "
                    "source's own words or figure as {{doc:ID}} (a [[sources]] quote)"))
    return out


def check_attributions(r: Reader, data: dict, sources) -> None:
    """Refuse the first sentence that attributes a number or a claim to a source without
    its {{doc:ID}}, naming the step and the sentence."""
    steps = data.get("steps") or []
    quoted = {s.id: s.quote or s.figure for s in sources}
    for at, text in _texts(data):
        found = problems(text, quoted)
        if not found:
            continue
        sentence, what = found[0]
        where = ""
        if at[0] == "steps" and isinstance(steps[at[1]], dict):
            where = f"step {at[1] + 1} ({steps[at[1]].get('title', '')!r}): "
        r.fail(at, f"{where}{what}; got {sentence[:160]!r}")
