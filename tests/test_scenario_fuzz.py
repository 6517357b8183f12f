"""Fuzzing the scenario loader: random bytes, and random TOML built from the schema's real
tables, keys and step names with random values (right and wrong types, out-of-range and
non-finite numbers, nesting, dates). Every input either loads or raises ScenarioError whose
one-line message starts with the file and names the field; no other exception escapes."""

import datetime as dt
import json
import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ssdlab.model.host.profiles import list_host_profiles, list_profiles
from ssdlab.model.lab.scenario import ScenarioError, load_scenario, parse_scenario
from ssdlab.model.lab.schema import STEP_FIELDS, TABLES, TOP_FIELDS

NAME = "fuzz.toml"
WORDS = sorted({*list_profiles(), *list_host_profiles(), "strict", "relatime", "noatime",
                "dd.bin", "filler", "test_file", "a/b", "", "..", "linux",
                "ssdlab/assets/traces/mixed.tracefs.txt", "README.md", *STEP_FIELDS})

scalars = st.one_of(
    st.integers(), st.integers(-5, 5000), st.booleans(),
    st.floats(allow_nan=True, allow_infinity=True), st.floats(0, 100),
    st.sampled_from(WORDS), st.text(st.characters(exclude_categories=("Cs",)), max_size=20),
    st.dates(), st.datetimes(timezones=st.just(dt.UTC)), st.times(),
)
values = st.recursive(scalars, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "do", "mb"]), inner,
                                                 max_size=2)), max_leaves=6)


# True about one time in sixteen: a wrong value now and then, so most files get past the
# first check and reach the later ones (hypothesis favours 0, so 0 means "as expected").
rarely = st.integers(0, 15).map(lambda i: i == 7)


def field_values(f):
    """Mostly values the field allows (so checks deeper in the file are reached), often
    anything at all."""
    if f.kind == "int":
        good = st.integers(int(f.low), int(f.high)).map(lambda v: v - v % f.multiple_of)
    elif f.kind == "float":
        good = st.floats(f.low, f.high)
    elif f.kind == "bool":
        good = st.booleans()
    elif f.kind == "choice":
        good = st.sampled_from(f.options())
    elif f.kind == "name":
        good = st.sampled_from(["a", "b", "dd.bin", "filler", "test_file.1", "linux", "u3"])
    elif f.kind == "path":
        good = st.sampled_from(["", "ssdlab/assets/traces/mixed.tracefs.txt", "README.md",
                                "no.tar"])
    else:
        good = st.text(max_size=10)
    return rarely.flatmap(lambda bad: values if bad else good)


@st.composite
def tables_of(draw, spec):
    """A table with some of its real keys, now and then a misspelt or foreign one."""
    keys = draw(st.lists(st.sampled_from(sorted(spec)), max_size=len(spec), unique=True)) \
        if spec else []
    table = {k: draw(field_values(spec[k])) for k in keys}
    if draw(rarely):
        table[draw(st.sampled_from(["start", "colour", "size_mib", "profile"])
                   | st.text(max_size=8))] = draw(values)
    return table


@st.composite
def steps(draw):
    do = draw(scalars) if draw(rarely) else draw(st.sampled_from(sorted(STEP_FIELDS)))
    body = draw(tables_of(STEP_FIELDS.get(do, {}) if isinstance(do, str) else {}))
    return body if draw(rarely) else {"do": do, **body}


@st.composite
def scenarios(draw):
    doc = {}
    if not draw(rarely):
        doc["version"] = draw(scalars) if draw(rarely) else 1
    doc.update(draw(tables_of(TOP_FIELDS)))
    for name, spec in TABLES.items():
        if name == "drive" or draw(st.booleans()):
            doc[name] = draw(values) if draw(rarely) else draw(tables_of(spec))
    if not draw(rarely) and isinstance(doc["drive"], dict):  # most files name a drive
        doc["drive"].setdefault("profile", draw(st.sampled_from(list_profiles())))
    doc["steps"] = draw(values) if draw(rarely) else draw(st.lists(steps(), max_size=6))
    return doc


def toml_value(v) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, float):
        return "nan" if math.isnan(v) else "inf" if v == math.inf else "-inf" \
            if v == -math.inf else repr(v)
    if isinstance(v, int):
        return str(v)
    if isinstance(v, str):  # a TOML basic string; DEL must be escaped too
        return json.dumps(v, ensure_ascii=False).replace("\x7f", "\\u007f")
    if isinstance(v, dt.date | dt.time):
        return v.isoformat()
    if isinstance(v, list):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    return "{" + ", ".join(f"{key(k)} = {toml_value(x)}" for k, x in v.items()) + "}"


def toml_text(doc: dict) -> str:
    """doc as TOML: plain keys first, then [tables] and [[steps]] as a person writes them."""
    lines, later = [], []
    for name, v in doc.items():
        if isinstance(v, dict) and all(not isinstance(x, dict) for x in v.values()):
            later += [f"[{name}]"] + [f"{key(k)} = {toml_value(x)}" for k, x in v.items()]
        elif name == "steps" and isinstance(v, list) and all(isinstance(s, dict) for s in v):
            for s in v:
                later += ["[[steps]]"] + [f"{key(k)} = {toml_value(x)}"
                                          for k, x in s.items()]
        else:
            lines.append(f"{key(name)} = {toml_value(v)}")
    return "\n".join(lines + later) + "\n"


def key(k: str) -> str:
    return json.dumps(k, ensure_ascii=False).replace("\x7f", "\\u007f")


def loads_or_names_a_field(text: str) -> None:
    try:
        s = parse_scenario(text, NAME)
    except ScenarioError as e:
        message = str(e)
        assert message.startswith(NAME) and "\n" not in message
        if not message.startswith((f"{NAME}: not valid TOML", f"{NAME}: not a scenario")):
            assert e.problems and all(p.path for p in e.problems)
            assert e.problems[0].path in message
    else:
        assert s.steps and all(st_.do in STEP_FIELDS for st_ in s.steps)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_random_scenarios_load_or_name_the_field(doc):
    loads_or_names_a_field(toml_text(doc))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=300))
def test_random_text_loads_or_names_the_field(text):
    loads_or_names_a_field(text)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=400) | st.builds(lambda d, b: toml_text(d).encode() + b,
                                           scenarios(), st.binary(max_size=8)))
def test_random_bytes_load_or_name_the_file(tmp_path_factory, data):
    path = tmp_path_factory.mktemp("fuzz") / NAME
    path.write_bytes(data)
    try:
        load_scenario(path)
    except ScenarioError as e:
        assert str(e).startswith(str(path)) and "\n" not in str(e)
