"""The scenario schema: every table refuses unknown keys, no value is coerced, numbers are
finite, odd bytes and odd shapes are named, and loading is linear in the number of steps.
One test per cause; each asserts the one-line message names the file, the field, the value
and what is allowed."""

import sys
from pathlib import Path

import pytest

from ssdlab.model.lab import schema
from ssdlab.model.lab.scenario import ScenarioError, load_scenario, parse_scenario

HEAD = """version = 1
name = "t"
[drive]
profile = "firstgen_block_64"
user_gib = 0.25
[host]
profile = "host_phenom2_x4_965"
[partition]
start_sector = 2048
[filesystem]
journal = true
"""
SYNC = '[[steps]]\ndo = "sync"\n'


def refused(text: str, name: str = "bad.toml") -> str:
    with pytest.raises(ScenarioError) as e:
        parse_scenario(text, name)
    message = str(e.value)
    assert message.startswith(name) and "\n" not in message
    return message


@pytest.mark.parametrize("table, line", [
    ("[drive]", 4), ("[host]", 7), ("[partition]", 9), ("[filesystem]", 11)])
def test_an_unknown_key_is_refused_in_every_table(table, line):
    text = (HEAD + SYNC).replace(table + "\n", table + "\ncolour = 3\n")
    message = refused(text)
    assert f"bad.toml:{line}: {table[1:-1]}.colour is not a known field; allowed here: " \
        in message


def test_a_misspelt_start_is_refused_not_run_at_sector_2048():
    message = refused(HEAD.replace("start_sector = 2048", "start = 63") + SYNC)
    assert ":9: partition.start is not a known field; allowed here: start_sector, " \
        "lvm_pe_start_kib" in message


def test_an_unknown_key_is_refused_at_the_top_and_in_a_step():
    assert "bad.toml:2: colour is not a known field; allowed here: version, name" in refused(
        HEAD.replace('name = "t"', 'colour = "red"') + SYNC)
    message = refused(HEAD + '[[steps]]\ndo = "write"\nsize_mib = 3\n')
    assert "bad.toml:14: steps[0].size_mib is not a known field; allowed here: name, mb" \
        in message


@pytest.mark.parametrize("value, shown", [
    ("true", "true"), ("63.0", "63.0"), ('"63"', "'63'"), ("[63]", "a list of 1 items"),
    ("{ a = 1 }", "a table"), ("1979-05-27", "a date (1979-05-27)")])
def test_an_integer_field_takes_no_boolean_float_string_or_other_type(value, shown):
    message = refused(HEAD.replace("start_sector = 2048", f"start_sector = {value}") + SYNC)
    assert (f"bad.toml:9: partition.start_sector must be a whole number from 0 to 2^32 "
            f"sectors of 512 bytes; got {shown}") in message


@pytest.mark.parametrize("value", ["true", '"8"'])
def test_a_number_field_takes_no_boolean_or_string(value):
    message = refused(HEAD + f'[[steps]]\ndo = "write"\nmb = {value}\n')
    assert "steps[0].mb must be a number from 0.001 to 10,000,000 MB" in message


def test_an_integer_is_taken_where_a_number_is_expected():
    s = parse_scenario(HEAD + '[[steps]]\ndo = "write"\nmb = 8\n')
    assert s.steps[0].args["mb"] == 8.0 and isinstance(s.steps[0].args["mb"], float)


@pytest.mark.parametrize("value", ["inf", "-inf", "+inf", "nan"])
def test_infinities_and_nan_are_refused(value):
    message = refused(HEAD + f'[[steps]]\ndo = "idle"\nseconds = {value}\n')
    assert "steps[0].seconds must be a number from 0 to 86,400 seconds; got" in message
    assert message.endswith(value.lstrip("+"))


def test_a_huge_integer_is_named_not_overflowed():
    message = refused(HEAD + '[[steps]]\ndo = "write"\nmb = 99999999999999999999\n')
    assert "steps[0].mb must be a number" in message and "got 99999999999999999999" in message


def test_a_boolean_field_takes_no_integer():
    message = refused(HEAD.replace("journal = true", "journal = 1") + SYNC)
    assert ":11: filesystem.journal must be true or false; got 1" in message


def test_a_multiple_is_required_where_the_model_needs_one():
    message = refused(HEAD + "max_request_kib = 6\n" + SYNC)
    assert "filesystem.max_request_kib must be a multiple of 4 from 4 to 32,768 KiB; got 6" \
        in message


@pytest.mark.parametrize("steps, shown", [
    ("steps = 5", "got 5"), ('steps = "sync"', "got 'sync'"), ("steps = []", "got a list of 0"),
    ("", "it is missing")])
def test_steps_of_the_wrong_type_are_named(steps, shown):
    text = HEAD.replace('name = "t"', f'name = "t"\n{steps}')
    message = refused(text)
    assert "steps must be a list of one or more [[steps]] tables; " + shown in message


def test_a_step_that_is_not_a_table_is_named():
    text = HEAD.replace('name = "t"', 'name = "t"\nsteps = [1, { do = "sync" }]')
    assert "steps[0] must be a table with do = STEP; got 1" in refused(text)


@pytest.mark.parametrize("do, shown", [('"defrag"', "got 'defrag'"), ("3", "got 3")])
def test_an_unknown_or_mistyped_do_is_named(do, shown):
    message = refused(HEAD + f"[[steps]]\ndo = {do}\n")
    assert "bad.toml:13: steps[0].do must be one of unpack, rm, sync" in message
    assert message.endswith(shown)


def test_a_step_without_do_is_named():
    message = refused(HEAD + '[[steps]]\nname = "a"\n')
    assert "bad.toml:12: steps[0].do must be one of unpack, rm" in message
    assert message.endswith("; it is missing")


def test_a_table_of_the_wrong_type_is_named():
    text = 'version = 1\ndrive = "fast"\n' + SYNC
    assert "bad.toml:2: drive must be a table ([drive]); got 'fast'" in refused(text)


@pytest.mark.parametrize("version, shown", [
    ("2", "got 2"), ('"1"', "got '1'"), ("1.0", "got 1.0"), ("true", "got true")])
def test_an_unknown_version_is_refused_with_the_supported_ones(version, shown):
    message = refused((HEAD + SYNC).replace("version = 1", f"version = {version}"))
    assert f"bad.toml:1: version must be a supported version: 1; {shown}" in message


def test_a_missing_version_is_named():
    assert "version must be a supported version: 1; it is missing" in refused(
        (HEAD + SYNC).replace("version = 1\n", ""))


def test_every_problem_is_found_the_first_named_and_the_rest_counted():
    text = HEAD.replace("start_sector = 2048", "start = 63\nlvm = 1") + \
        '[[steps]]\ndo = "write"\nmb = -1\n'
    with pytest.raises(ScenarioError) as e:
        parse_scenario(text, "bad.toml")
    assert [p.path for p in e.value.problems] == ["partition.start", "partition.lvm",
                                                   "steps[0].mb"]
    assert str(e.value).endswith("(and 2 more problems)")


def test_a_utf8_bom_is_accepted(tmp_path):
    path = tmp_path / "bom.toml"
    path.write_bytes(b"\xef\xbb\xbf" + (HEAD + SYNC).encode())
    assert load_scenario(path).name == "t"
    assert parse_scenario("\ufeff" + HEAD + SYNC).name == "t"


@pytest.mark.parametrize("data", [
    (HEAD + SYNC).encode().replace(b'"t"', b'"\xe9t\xe9"'),  # Latin-1 text
    bytes(range(256)) * 4,  # binary garbage
])
def test_non_utf8_bytes_are_named_with_the_file(tmp_path, data):
    path = tmp_path / "latin1.toml"
    path.write_bytes(data)
    with pytest.raises(ScenarioError) as e:
        load_scenario(path)
    assert str(e.value).startswith(f"{path}: is not UTF-8 text (byte ")


def test_binary_garbage_that_is_utf8_is_not_valid_toml(tmp_path):
    path = tmp_path / "garbage.toml"
    path.write_bytes(bytes(range(1, 128)) * 8)
    with pytest.raises(ScenarioError, match=r"garbage\.toml: not valid TOML: "):
        load_scenario(path)


@pytest.mark.parametrize("nest", ["x = " + "[" * 5000 + "]" * 5000,
                                  "x = " + "{a = " * 3000 + "1" + "}" * 3000])
def test_deep_nesting_is_named_not_a_recursion_error(nest):
    message = refused("version = 1\n" + nest + "\n")
    assert message == "bad.toml: not a scenario: arrays or tables nested too deeply"


def test_a_table_nested_deep_by_dotted_keys_is_named_at_its_top_key():
    message = refused("version = 1\n[" + "a." * 3000 + "b]\n")
    assert "a is not a known field; allowed here: version, name, description, drive" \
        in message


def test_nesting_tomllib_survives_is_shown_without_recursing():
    """A value nested a few hundred deep parses; the message describes it, never repr()s
    it (a repr of deep nesting recurses too)."""
    limit = sys.getrecursionlimit()
    message = refused(HEAD.replace('name = "t"', "name = " + "[" * 300 + "]" * 300) + SYNC)
    assert "name must be a string; got a list of 1 items" in message
    assert sys.getrecursionlimit() == limit


def test_a_long_string_is_shortened_in_the_message():
    message = refused(HEAD.replace('"firstgen_block_64"', '"' + "x" * 10_000 + '"') + SYNC)
    assert "(10000 characters)" in message and len(message) < 2000


def test_file_names_are_checked():
    for bad in ('""', '"a/b"', '".."', '"' + "n" * 256 + '"'):
        message = refused(HEAD + f'[[steps]]\ndo = "write"\nname = {bad}\nmb = 1\n')
        assert "steps[0].name must be a file name of 1 to 255 bytes without '/'" in message


def test_the_step_lines_come_from_one_pass():
    s = parse_scenario(HEAD + SYNC + "\n# a comment\n[[steps]] # why\ndo = 'fstrim'\n")
    assert [st.line for st in s.steps] == [12, 16]


MIXED = ('[[steps]]\ndo = "write"\nname = "f{i}"\nmb = 0.5\n'
         '[[steps]]\ndo = "unpack"\nscale = 0.001\n'
         '[[steps]]\ndo = "git_clone"\nscale = 0.001\n'
         '[[steps]]\ndo = "make"\n'
         '[[steps]]\ndo = "fill"\npercent = 1\n'
         '[[steps]]\ndo = "random_writes"\nname = "r{i}"\nmb = 1\nfiles = 2\nrequests = 1\n'
         '[[steps]]\ndo = "delete"\nname = "f{i}"\n')


@pytest.mark.parametrize("pattern, per", [
    ('[[steps]]\ndo = "write"\nname = "f{i}"\nmb = 0.5\n'
     '[[steps]]\ndo = "delete"\nname = "f{i}"\n', 2),
    (MIXED, 7),  # trees, fillers and file sets pile up: their names are found in O(1)
])
def test_loading_is_linear_in_the_number_of_steps(monkeypatch, pattern, per):
    """Count the operations, not the time: the Python lines executed to load n and 2n
    steps (tomllib included). Linear loading doubles them; the old per-field line lookup,
    which rescanned the file for every step, made them grow fourfold."""
    def steps(n):
        return HEAD + "".join(pattern.format(i=i) for i in range(n // per))

    def lines_run(text):
        count = 0

        def tracer(frame, event, arg):
            nonlocal count
            count += 1
            return tracer

        old = sys.gettrace()
        sys.settrace(tracer)
        try:
            parse_scenario(text)
        finally:
            sys.settrace(old)
        return count

    parse_scenario(steps(per))  # profiles loaded and cached before counting
    checks = []
    real = schema.check_step
    monkeypatch.setattr("ssdlab.model.lab.scenario.check_step",
                        lambda *a, **k: checks.append(1) or real(*a, **k))
    n = 120 * per
    small, big = lines_run(steps(n)), lines_run(steps(2 * n))
    assert len(checks) == 3 * n  # one schema check per step
    assert big < 2.2 * small, (small, big)


SHIPPED = sorted(Path(__file__).resolve().parent.parent.glob("ssdlab/assets/scenarios/*.toml"))


def test_the_schema_describes_every_field_the_shipped_scenarios_use():
    for path in SHIPPED:
        s = load_scenario(path)
        for step in s.steps:
            assert set(step.args) == set(schema.STEP_FIELDS[step.do])
