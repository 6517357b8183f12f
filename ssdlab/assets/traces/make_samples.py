"""Write the sample block traces in this folder, one per format, from one small workload.

The workload is deterministic (a seeded random.Random): sequential 128 KiB writes, random
4 KiB overwrites in the written area, a few reads, discards of 512 KiB and cache flushes
(some alone, some joined to the next write as a preflush). Run it from anywhere:

    .venv/bin/python ssdlab/assets/traces/make_samples.py

tests/test_traces.py calls `workload()` and `render_all()` to check that each sample parses
back to exactly this workload and that the files on disk are what this script writes.
"""

from __future__ import annotations

import random
from pathlib import Path

HERE = Path(__file__).resolve().parent
KIB = 1024
SECTOR = 512
BASE = 4 * 1024 * KIB  # the workload lives from 4 MiB to 12 MiB of the device


def workload() -> list[tuple[float, str, int, int, bool]]:
    """(time_s, op, offset_bytes, length_bytes, flush_first) rows; a lone flush has op
    "flush" and offset and length 0."""
    rng = random.Random(2011)
    rows: list[tuple[float, str, int, int, bool]] = []
    t = 0.0

    def add(op: str, off: int = 0, length: int = 0, flush_first: bool = False) -> None:
        nonlocal t
        t += rng.choice((0.000125, 0.00025, 0.0005, 0.002))
        rows.append((round(t, 6), op, off, length, flush_first))

    for i in range(64):  # 8 MiB written in order
        add("write", BASE + i * 128 * KIB, 128 * KIB)
    add("flush")
    for i in range(120):  # 4 KiB overwrites, a flush now and then
        page = rng.randrange(2048)
        if i % 10 == 3:
            add("read", BASE + page * 4 * KIB, 4 * KIB)
        else:
            add("write", BASE + page * 4 * KIB, 4 * KIB, flush_first=(i % 25 == 24))
    for i in range(4):  # free four 512 KiB extents
        add("discard", BASE + (1 + 3 * i) * 512 * KIB, 512 * KIB)
    add("flush")
    for i in range(8):  # a little more data afterwards
        add("write", BASE + 8 * 1024 * KIB + i * 64 * KIB, 64 * KIB, flush_first=(i == 0))
    add("flush")
    return rows


def expected_requests(rows=None, with_flush=True, ops=("write", "read", "discard")):
    """(op, offset, length) as a parser should return them: a preflush comes first."""
    out = []
    for _t, op, off, length, flush_first in rows or workload():
        if (flush_first or op == "flush") and with_flush:
            out.append(("flush", 0, 0))
        if op != "flush" and op in ops:
            out.append((op, off, length))
    return out


def tracefs() -> str:
    lines = ["# tracer: nop", "#", "# entries-in-buffer/entries-written: 212/212   #P:4", "#",
             "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION",
             "#              | |         |   |||||     |         |"]
    boot = 8123.0
    for k, (t, op, off, length, flush_first) in enumerate(workload()):
        cpu = k % 4
        ts = f"{boot + t:.6f}"
        comm, task = ("dd", "dd-4242") if op != "flush" else ("kworker/1:1H", "kworker/1:1H-97")
        if op == "flush":
            rq = f"7,0 FF 0 () 0 + 0 none,0,0 [{comm}]"
        else:
            letter = {"write": "W", "read": "R", "discard": "D"}[op]
            rwbs = ("F" if flush_first else "") + letter + ("S" if flush_first else "")
            nbytes = length if op != "discard" else 0
            rq = (f"7,0 {rwbs} {nbytes} () {off // SECTOR} + {length // SECTOR} none,0,0 "
                  f"[{comm}]")
        lines.append(f"{task:>16} [{cpu:03d}] ..... {ts}: block_rq_issue: {rq}")
        if k % 50 == 7:  # the root disk is busy too; the sample is for 7,0
            lines.append(f"     systemd-jou-311 [{cpu:03d}] ..... {ts}: block_rq_issue: "
                         f"259,0 WS 8192 () 1048576 + 16 none,0,0 [systemd-journal]")
        if k % 40 == 5:
            lines.append(f"          <idle>-0       [{cpu:03d}] d.h1. {ts}: block_rq_complete: "
                         f"7,0 W () {off // SECTOR} + {length // SECTOR} none,0,0 [0]")
    return "\n".join(lines) + "\n"


def blkparse() -> str:
    lines = []
    seq = 0
    for k, (t, op, off, length, flush_first) in enumerate(workload()):
        cpu = k % 2
        if op == "flush":
            rwbs, sec, n = "FWS", 0, 0
        else:
            letter = {"write": "W", "read": "R", "discard": "D"}[op]
            rwbs = ("F" if flush_first else "") + letter + ("S" if flush_first else "")
            sec, n = off // SECTOR, length // SECTOR
        for act, dt, tail in (("Q", 0.0, "[fio]"), ("D", 0.000004, "[fio]"),
                              ("C", 0.00009, "[0]")):
            if act == "Q" and k % 8:
                continue  # keep the file small: one Q line in eight
            seq += 1
            lines.append(f"  7,0    {cpu}    {seq:>5}     {t + dt:.9f}  4242  {act} "
                         f"{rwbs:>3} {sec} + {n} {tail}")
    lines += ["CPU0 (7,0):", " Reads Queued:           3,       12KiB  Writes Queued:      "
              "    60,     5120KiB", "Total (7,0):", " Reads Queued:          12,       48KiB",
              "", "Throughput (R/W): 120KiB/s / 22000KiB/s", "Events (7,0): 600 entries",
              "Skips: 0 forward (0 -   0.0%)"]
    return "\n".join(lines) + "\n"


def fio(version: int) -> str:
    name = "/dev/loop0"
    pre = (lambda t: f"{round(t * 1e6)} ") if version == 3 else (lambda t: "")
    lines = [f"fio version {version} iolog", f"{pre(0.0)}{name} add", f"{pre(0.0)}{name} open"]
    for t, op, off, length, flush_first in workload():
        if flush_first or op == "flush":
            lines.append(f"{pre(t)}{name} sync 0 0")
        if op != "flush":
            act = {"write": "write", "read": "read", "discard": "trim"}[op]
            lines.append(f"{pre(t)}{name} {act} {off} {length}")
    if version == 2:
        lines.append(f"{name} wait 1000 0")
    last = workload()[-1][0]
    lines.append(f"{pre(last)}{name} close")
    return "\n".join(lines) + "\n"


def msr() -> str:
    """MSR-Cambridge traces know only reads and writes; discards and flushes are left out."""
    start = 128166372000000000  # 2007-02-22 in FILETIME ticks
    lines = []
    for t, op, off, length, _flush in workload():
        if op in ("read", "write"):
            ticks = start + round(t * 1e7)
            lines.append(f"{ticks},lab,0,{op.capitalize()},{off},{length},{417 + length // 64}")
    return "\n".join(lines) + "\n"


def render_all() -> dict[str, str]:
    return {"mixed.tracefs.txt": tracefs(), "mixed.blkparse.txt": blkparse(),
            "mixed.fio2.log": fio(2), "mixed.fio3.log": fio(3), "mixed.msr.csv": msr()}


def main() -> None:
    for name, text in render_all().items():
        (HERE / name).write_text(text)
        print(f"{name}: {len(text)} bytes")


if __name__ == "__main__":
    main()
