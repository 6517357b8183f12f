"""Tables drawn from a sweep's results (ssdlab/model/lab/sweeprun.py): any field against any other
(`ssdlab plot`), and the classic WA-against-spare chart (`ssdlab chart --chart wa-vs-spare`).

Never a wrong figure: runs that differ only in their seed are summarised at each x (n, mean,
sd, min, max; the error bars show min to max), and a point field that varies but is on no
axis is never averaged away: the WA chart draws one line per value of it, `plot` refuses and
names it. A result's field is found under its name, or result.NAME when the point holds a
field of that name too (spare: the asked-for spare; result.spare: the drive's real one); a
scenario sweep's per-step figures are steps[N].NAME. No Qt here.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, replace

import numpy as np

from .charts import CHARTS, POLICY_NAMES, SWEEP_POLICIES, Axis, Chart, Line, Table

# A field's plain name for axes and titles, short enough for a single-column figure (the
# sidecar and the provenance keep the field names themselves).
PLAIN = {"wa": "write amplification", "theory_wa": "analytic WA", "spare": "spare",
         "gc": "GC policy", "pages_per_block": "pages per block", "user_pages": "user pages",
         "hot_write_fraction": "hot share of writes", "hot_lba_fraction": "hot share of pages",
         "gc_copies": "pages copied by GC", "erases": "block erases",
         "host_writes": "host page writes", "nand_writes": "flash page writes"}
# Units of the fields an axis may show, as the axis writes them in parentheses.
UNITS = {"wa": "NAND/host", "theory_wa": "NAND/host", "spare": "fraction of physical",
         "result.spare": "fraction of physical", "effective_spare": "fraction of physical",
         "hot_write_fraction": "fraction", "hot_lba_fraction": "fraction",
         "gc_copies": "pages", "erases": "blocks", "host_writes": "pages",
         "nand_writes": "pages"}
# A point field's value in words with its unit, for legends and panel titles
VALUE_WORDS = {"pages_per_block": "{:,} pages per block", "user_pages": "{:,} user pages",
               "d": "d = {}", "gc_low_blocks": "GC at {} free blocks",
               "warmup_drive_writes": "{:g} drive writes of warm-up",
               "measure_drive_writes": "{:g} drive writes measured",
               "seed": "seed {}", "workload": "{} writes", "mapping": "{}-mapped"}
PERCENT_WORDS = {"spare": "{:g} % spare", "hot_write_fraction": "{:g} % of writes hot",
                 "hot_lba_fraction": "{:g} % of pages hot",
                 "active_fraction": "{:g} % of pages written"}
MAX_LINES = 8  # beyond this many lines a single-column figure is not readable
MAX_FACETS = 6
# Values beyond this are no measurement of a drive, and overflow the axis ticks.
MAX_MAGNITUDE = 1e15
SPREAD = "error bars: min to max over seeds"
STATS = ("n", "sd", "min", "max")


@dataclass(frozen=True)
class Facets:
    """A plot's panels: one table per value of the field `name` (values: as text)."""

    name: str
    values: tuple[str, ...]
    tables: tuple[Table, ...]

    def panel_title(self, i: int) -> str:
        """Panel i's title in words with units: "256 pages per block"."""
        try:
            value = json.loads(self.values[i])
        except ValueError:
            value = self.values[i]
        return value_text(self.name, value)


def value_text(field: str, value) -> str:
    """A point field's value as a legend says it: "256 pages per block", "7 % spare",
    "FIFO"; a field without words of its own: "field value"."""
    if field == "gc" and isinstance(value, str) and value in POLICY_NAMES:
        return POLICY_NAMES[value]
    number = _number(value)
    if field in PERCENT_WORDS and number is not None:
        return PERCENT_WORDS[field].format(round(100 * number, 6))
    if field in VALUE_WORDS and (number is not None or isinstance(value, str)):
        try:
            return VALUE_WORDS[field].format(value)
        except (ValueError, TypeError):
            pass
    return f"{PLAIN.get(field, field)} {_text(value)}"


def failed_caveat(records: Iterable[dict], fields: Iterable[str]) -> str:
    """What a figure must say of the runs that did not finish (status other than ok):
    how many of how many, and the first few by the fields the figure shows; "" when all
    finished."""
    records = [r for r in records if isinstance(r, dict)]
    failed = [r for r in records if r.get("status") != "ok"]
    if not failed:
        return ""
    shown = []
    for r in failed[:3]:
        point = r.get("point") if isinstance(r.get("point"), dict) else {}
        shown.append(", ".join(value_text(k, point[k]) for k in (*fields, "seed")
                               if k in point))
    more = f" and {len(failed) - 3} more" if len(failed) > 3 else ""
    return (f"{len(failed)} of {len(records)} runs failed and are not drawn: "
            f"{'; '.join(shown)}{more}")


class PlotError(ValueError):
    """A plot that cannot be drawn right: one line naming the option and what is allowed."""


def _number(value) -> float | None:
    """A result's field as a finite float, or None (missing, text, true/false, huge)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        value = float(value)
    except OverflowError:
        return None
    return value if np.isfinite(value) else None


def finished(records: Iterable[dict]) -> list[dict]:
    """The records of runs that finished, with a point and a result to read."""
    return [r for r in records if isinstance(r, dict) and r.get("status") == "ok"
            and isinstance(r.get("result"), dict) and isinstance(r.get("point"), dict)]


def flat(record: dict) -> dict:
    """A finished record's fields by name (see the module docstring); lists of numbers
    (wa_windows) are no field."""
    point, result = record["point"], record["result"]
    out = {k: v for k, v in point.items() if not isinstance(v, list | dict)}
    for k, v in result.items():
        name = f"result.{k}" if k in point else k
        if isinstance(v, list) and all(isinstance(s, dict) for s in v):
            for i, step in enumerate(v):
                out.update({f"{k}[{i}].{sk}": sv for sk, sv in step.items()
                            if not isinstance(sv, list | dict)})
        elif not isinstance(v, list | dict):
            out[name] = v
    return out


def _key(value) -> str:
    """A value as a hashable, comparable key (sweep values may be any JSON)."""
    return json.dumps(value, sort_keys=True)


def _text(value) -> str:
    return value if isinstance(value, str) else _key(value)


def varying(rows: list[dict], skip: Iterable[str] = ()) -> list[str]:
    """The point fields that take more than one value over the rows (seed excepted: runs
    that differ only in seed are repeats)."""
    names = dict.fromkeys(k for r in rows for k in r["_point"])
    return [k for k in names if k not in ("seed", *skip)
            and len({_key(r["_point"].get(k)) for r in rows}) > 1]


def summary(values: list[float]) -> tuple[float, ...]:
    """(mean, n, sd, min, max) of a point's repeats; sd with n - 1 (0 for one run)."""
    v = np.asarray(values, dtype=float)
    sd = float(v.std(ddof=1)) if v.size > 1 else 0.0
    return float(v.mean()), float(v.size), sd, float(v.min()), float(v.max())


def _table(chart: Chart, xs: list, groups: dict[str, dict], labels: tuple[str, ...]
           ) -> Table:
    """A Table of each line's summary per x; groups: line key -> {x index: [values]}."""
    ys, stats = {}, {}
    for key, by_x in groups.items():
        cols = np.full((5, len(xs)), np.nan)
        for i, values in by_x.items():
            cols[:, i] = summary(values)
        ys[key] = cols[0]
        stats[key] = dict(zip(STATS, cols[1:], strict=True))
    repeated = any(np.nanmax(s["n"], initial=0) > 1 for s in stats.values())
    return Table(chart, False, np.asarray(xs, dtype=float), ys, labels, stats,
                 SPREAD if repeated else "")


def _rows(records: Iterable[dict]) -> list[dict]:
    """Each finished record's fields (flat), its point under "_point". PlotError for a point
    no sweep writes: a value that is a list or table, or a seed that is no whole number."""
    rows = []
    for r in finished(records):
        for k, v in r["point"].items():
            scalar = v is None or isinstance(v, str | bool | int | float)
            seed_ok = k != "seed" or (isinstance(v, int) and not isinstance(v, bool))
            if not (scalar and seed_ok):
                allowed = "a whole number" if k == "seed" else "a number, text, true/false"
                raise PlotError(f"point field {k!r} of run {_text(r.get('key'))} must be "
                                f"{allowed}; got {_text(v)[:60]}")
        row = flat(r)
        row["_point"] = r["point"]
        rows.append(row)
    return rows


def _in_range(rows: list[dict], field: str, option: str) -> None:
    """PlotError for a value of field too large to draw (matplotlib's ticks overflow)."""
    for r in rows:
        value = _number(r.get(field))
        if value is not None and abs(value) > MAX_MAGNITUDE:
            point = _text(r["_point"])[:60]
            raise PlotError(f"{option} {field}: {value:g} (at point {point}) is "
                            f"outside -{MAX_MAGNITUDE:g} to {MAX_MAGNITUDE:g}, the values a "
                            "figure can draw")


def sweep_table(name: str, records: list[dict]) -> Table:
    """Chart `name` (a sweep chart) from a sweep's result records: for each spare (the
    drive's, else the point's), the measured and the analytic WA of every GC policy, one
    line per value of every other point field that varies, summarised over seed repeats.
    PlotError when that would be more than MAX_LINES lines, naming the fields."""
    if CHARTS.get(name) is None or CHARTS[name].source != "sweep":
        sweeps = [n for n, c in CHARTS.items() if c.source == "sweep"]
        raise ValueError(f"chart must be one of {', '.join(sweeps)} for a sweep's results; "
                         f"got {name!r}")
    rows = []
    for row in _rows(records):
        spare = _number(row.get("result.spare", row.get("spare")))
        if spare is not None and row["_point"].get("gc") in SWEEP_POLICIES:
            rows.append((row, spare))
    for field in ("wa", "theory_wa", "result.spare", "spare"):
        _in_range([r for r, _ in rows], field, "--chart")
    other = varying([r for r, _ in rows], skip=("spare", "gc"))
    combos = sorted({tuple(_key(r["_point"].get(k)) for k in other) for r, _ in rows},
                    key=lambda c: [_order(json.loads(v)) for v in c])
    policies = [p for p in SWEEP_POLICIES if any(r["_point"]["gc"] == p for r, _ in rows)]
    if len(combos) * len(policies) > MAX_LINES:
        raise PlotError(f"{', '.join(other)} vary beside gc and spare: "
                        f"{len(combos) * len(policies)} lines, more than {MAX_LINES} are "
                        f"unreadable; draw it with `ssdlab plot --x spare --y wa --by gc "
                        f"--facet {other[0]}`")
    spares = sorted({s for _, s in rows})
    index = {s: i for i, s in enumerate(spares)}
    lines, groups = [], {}
    for policy in SWEEP_POLICIES:  # every policy keeps its lines, drawn or not (the CSV)
        for combo in combos or [()]:
            tag = ", ".join(value_text(k, json.loads(v)) for k, v in zip(other, combo,
                                                                         strict=True))
            key = policy + "".join(f"_{k}_{json.loads(v)}" for k, v in
                                   zip(other, combo, strict=True))
            # one policy drawn: the title names it, each label its own values alone
            label = tag if tag and len(policies) == 1 else \
                POLICY_NAMES[policy] + (f", {tag}" if tag else "")
            lines += [Line(key, f"{label} (simulated)", policy, f"wa_{key}", marker=True),
                      Line(f"{key}_theory", f"{label} (analytic)", policy,
                           f"wa_analytic_{key}", dashed=True)]
            for suffix, field in (("", "wa"), ("_theory", "theory_wa")):
                got = groups.setdefault(key + suffix, {})
                for r, s in rows:
                    value = _number(r.get(field))
                    if (r["_point"]["gc"] == policy and value is not None and
                            tuple(_key(r["_point"].get(k)) for k in other) == combo):
                        got.setdefault(index[s], []).append(value)
    chart = replace(CHARTS[name], lines=tuple(lines))
    if combos != [()] and len(policies) == 1:
        chart = replace(chart, title=f"{chart.title}, {POLICY_NAMES[policies[0]]} GC")
    caveat = failed_caveat(records, ("gc", "spare", *other))
    return replace(_table(chart, [100 * s for s in spares], groups, ()),
                   caveats=(caveat,) if caveat else ())


def fields(rows: list[dict]) -> list[str]:
    """Every field name the rows hold, in first-seen order."""
    return list(dict.fromkeys(k for r in rows for k in r if k != "_point"))


def plot_tables(records: list[dict], x: str, y: str, by: str | None = None,
                facet: str | None = None) -> Table | Facets:
    """`y` against `x`, one line per value of `by`, a panel per value of `facet`, each
    point summarised over the runs that differ only in seed. PlotError names a field the
    results do not hold (listing those they do), a y that is not a number, too many lines or
    facets, or a point field that varies but is on no axis."""
    rows = _rows(records)
    if not rows:
        raise PlotError("holds no finished sweep run; run `ssdlab sweep` first")
    names = fields(rows)
    for option, name in (("--x", x), ("--y", y), ("--by", by), ("--facet", facet)):
        if name is not None and name not in names:
            raise PlotError(f"{option} {name!r} is no field of these results; fields: "
                            f"{', '.join(names)}")
    numeric = [n for n in names if any(_number(r.get(n)) is not None for r in rows)]
    if y not in numeric:
        raise PlotError(f"--y {y!r} holds no numbers; numeric fields: {', '.join(numeric)}")
    rows = [r for r in rows if _number(r.get(y)) is not None and x in r]
    for option, name in (("--x", x), ("--y", y)):
        _in_range(rows, name, option)
    on_axes = [n for n in (x, by, facet) if n]
    loose = varying(rows, skip=on_axes)
    if loose:
        values = {k: sorted({_text(r["_point"].get(k)) for r in rows}) for k in loose}
        raise PlotError(f"{', '.join(loose)} {'vary' if len(loose) > 1 else 'varies'} too ("
                        + "; ".join(f"{k}: {', '.join(v)}" for k, v in values.items())
                        + "); name each with --by or --facet rather than average over it")
    by_values = _values(rows, by)
    if by == "gc":  # the policies in the WA chart's order: the same marker for each
        by_values.sort(key=lambda v: SWEEP_POLICIES.index(v) if v in SWEEP_POLICIES
                       else len(SWEEP_POLICIES))
    facet_values = _values(rows, facet)
    if len(by_values) > MAX_LINES:
        raise PlotError(f"--by {by} has {len(by_values)} values; at most {MAX_LINES} lines "
                        "are readable: use --facet for one of them")
    if len(facet_values) > MAX_FACETS:
        raise PlotError(f"--facet {facet} has {len(facet_values)} values; at most "
                        f"{MAX_FACETS} panels fit")
    numeric_x = all(_number(r.get(x)) is not None for r in rows)
    if numeric_x:
        xs = sorted({_number(r[x]) for r in rows})
        where, labels = {_key(v): i for i, v in enumerate(xs)}, ()
    else:  # categories, in sorted order, drawn at 1, 2, ...
        cats = sorted({_text(r[x]) for r in rows})
        xs = list(range(1, len(cats) + 1))
        where = {c: i for i, c in enumerate(cats)}
        labels = tuple(POLICY_NAMES.get(c, c) if x == "gc" else c for c in cats)
    lines = []
    for i, value in enumerate(by_values):
        text = "" if by is None else _text(value)
        token = text if by == "gc" and text in SWEEP_POLICIES else f"cycle{i}"
        lines.append(Line(f"s{i}", value_text(by, value) if by else PLAIN.get(y, y),
                          token, f"{y}" + (f"_{by}_{text}" if by else ""), marker=True))
    title = f"{PLAIN.get(y, y)} against {PLAIN.get(x, x)}"
    chart = Chart("plot", "", title[:1].upper() + title[1:], "",
                  Axis(_name(rows, x), UNITS.get(x, ""), x),
                  Axis(_name(rows, y), UNITS.get(y, ""), y), tuple(lines), source="sweep")
    caveat = failed_caveat(records, [n for n in (by, facet, x) if n])
    tables = []
    for fv in facet_values:
        groups = {line.key: {} for line in lines}
        for r in rows:
            if facet and _key(r.get(facet)) != _key(fv):
                continue
            b = by_values.index(r.get(by)) if by else 0
            at = where[_key(_number(r[x]))] if numeric_x else where[_text(r[x])]
            groups[f"s{b}"].setdefault(at, []).append(_number(r[y]))
        tables.append(replace(_table(chart, xs, groups, labels),
                              caveats=(caveat,) if caveat else ()))
    if facet is None:
        return tables[0]
    return Facets(facet, tuple(_text(v) for v in facet_values), tuple(tables))


def _name(rows: list[dict], field: str) -> str:
    """An axis's label: the field, or for a scenario sweep's `value` the field it sets."""
    varied = {r.get("field") for r in rows}
    if field == "value" and len(varied) == 1 and isinstance(next(iter(varied)), str):
        return f"{next(iter(varied))} (value)"
    return PLAIN.get(field, field)


def _order(value) -> tuple:
    """Numbers first, in numeric order (16, 64, 256, never 16, 256, 64), then text."""
    return (_number(value) is None, _number(value) or 0, _text(value))


def _values(rows: list[dict], name: str | None) -> list:
    """The values a field takes, sorted (numbers before text), or [None] for no field."""
    if name is None:
        return [None]
    seen = {_key(r.get(name)): r.get(name) for r in rows}
    return sorted(seen.values(), key=_order)
