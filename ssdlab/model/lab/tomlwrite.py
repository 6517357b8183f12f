"""Scenario-shaped data written back as TOML: what sweeps and lessons vary, then parse again.

One writer for both, so a value a scenario file can hold survives the round trip whatever it
is: any Unicode text (an emoji in a name is a character, never a pair of JSON surrogate
escapes, which TOML refuses), control characters escaped, keys quoted.
"""

from __future__ import annotations

import json


def toml_string(text: str) -> str:
    """A TOML basic string: JSON's escapes are TOML's, once non-ASCII stays as it is and
    DEL (which JSON leaves bare and TOML forbids) is escaped."""
    return json.dumps(text, ensure_ascii=False).replace("\x7f", "\\u007f")


def toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, list) and not any(isinstance(v, dict) for v in value):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    raise ValueError(f"a scenario field must be a number, a string, true/false or a list of "
                     f"them; got {value!r:.40}")


def toml_text(data: dict) -> str:
    """A scenario's data (scalars, tables of scalars, arrays of tables such as [[steps]])
    as TOML text. ValueError for anything else (a table nested in a table)."""
    def is_tables(v) -> bool:
        return isinstance(v, list) and bool(v) and all(isinstance(x, dict) for x in v)

    lines = [f"{toml_string(k)} = {toml_value(v)}" for k, v in data.items()
             if not isinstance(v, dict) and not is_tables(v)]
    for name, value in data.items():
        if isinstance(value, dict):
            tables, header = [value], f"[{toml_string(name)}]"
        elif is_tables(value):
            tables, header = value, f"[[{toml_string(name)}]]"
        else:
            continue
        for table in tables:
            lines.append(header)
            lines += [f"{toml_string(k)} = {toml_value(v)}" for k, v in table.items()]
    return "\n".join(lines) + "\n"
