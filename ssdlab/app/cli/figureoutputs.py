"""The options and files of `ssdlab chart` and `ssdlab plot` alike: which formats (one, or a
list: --format pdf,svg,csv), the column width, the title (--no-title for a caption), a
creation date (--timestamp), and where each file goes.

One chart in one format is written to -o FILE. More than one (--chart all, or a list of
formats) go into the folder -o DIR, named CHART.FORMAT, so the data is computed once and
drawn as every file. Every path is checked before any work (writable, not an input, no two
the same, a CSV's JSON sidecar too), so a bad one costs nothing. The sidecar, and each file
in an -o folder, is a file the person did not name: one already there that SSD Lab did not
write (no provenance of ours inside) is refused unless --overwrite. A CSV and its sidecar
are written together, both or neither.

Every file also says how to make it again (reproduce): the command, its paths relative to
the folder the file is in, to be run there.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass

FORMATS = ("png", "svg", "pdf", "csv")


def formats(text: str) -> tuple[str, ...]:
    """--format: one format, or several separated by commas."""
    got = tuple(dict.fromkeys(t.strip().lower() for t in text.split(",")))
    bad = [f for f in got if f not in FORMATS]
    if not got or bad:
        raise argparse.ArgumentTypeError(f"must be one or more of {', '.join(FORMATS)} "
                                         f"separated by commas; got {text!r}")
    return got


def add_options(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--format", type=formats, metavar="FMT[,FMT...]",
                   help="file format, or several separated by commas: png, svg, pdf, csv "
                   "(default: from -o's extension)")
    p.add_argument("--width", choices=("single", "double"), default="single",
                   help="column width: single (3.5 in, default) or double (7 in); type is "
                   "7.5 to 10 pt, so nothing prints under 7 pt with a single column scaled "
                   "to 8.5 cm")
    p.add_argument("-o", "--output", required=True, metavar="FILE|DIR",
                   help=f"the file to write (CSV also writes FILE's name with .json); with "
                   f"{what} or several formats, a folder for CHART.FORMAT files")
    p.add_argument("--overwrite", action="store_true",
                   help="replace files SSD Lab did not write where a CSV's JSON sidecar, or "
                   "a chart in the -o folder, goes (without it the command refuses them)")
    p.add_argument("--no-title", dest="title", action="store_false",
                   help="leave the title off the figure, for a caption")
    p.add_argument("--timestamp", action="store_true",
                   help="record the moment of writing in PDF and SVG files (without it "
                   "the same figure is the same bytes every time)")


@dataclass(frozen=True)
class Output:
    chart: str
    format: str
    path: str


def plan(args: argparse.Namespace, charts: list[str], inputs: dict[str, str]
         ) -> list[Output]:
    """Every file to write, checked (see the module docstring); OutputFileError naming -o
    and the path otherwise. A folder -o is made when its parent exists."""
    from ssdlab.app.atomicfile import OutputFileError
    from ssdlab.app.chartexport import (
        check_export,
        foreign_sidecar,
        format_of,
        is_own_export,
        sidecar_path,
    )
    from ssdlab.app.cli.outputs import check_outputs

    out = args.output
    if not str(out).strip():
        raise OutputFileError(f"-o {out!r}: names no file; give a file name")
    fmts = args.format
    if len(charts) == 1 and (fmts is None or len(fmts) == 1) and not os.path.isdir(out):
        try:
            fmt = fmts[0] if fmts else format_of(out)
        except OutputFileError as e:
            raise OutputFileError(f"-o {e}") from None
        files = [Output(charts[0], fmt, out)]
    else:
        if fmts is None:
            raise OutputFileError(f"-o {out}: with several charts, give the formats too "
                                  "(--format pdf,svg,csv)")
        if os.path.exists(out) and not os.path.isdir(out):
            raise OutputFileError(f"-o {out}: is a file; with several charts or formats -o "
                                  "names a folder")
        parent = os.path.dirname(os.path.abspath(out))
        if not os.path.isdir(parent):
            raise OutputFileError(f"-o {out}: its parent folder {parent} does not exist")
        files = [Output(c, f, os.path.join(out, f"{c}.{f}")) for c in charts for f in fmts]
        if not os.path.isdir(out):
            try:
                os.mkdir(out)
            except OSError as e:
                raise OutputFileError(f"-o {out}: cannot make the folder: "
                                      f"{e.strerror or e}") from None
    named = {}
    for f in files:
        named[f"-o {f.chart}.{f.format}" if len(files) > 1 else "-o"] = f.path
        if f.format == "csv":
            named[f"-o {f.chart}.csv's JSON sidecar" if len(files) > 1
                  else "-o's JSON sidecar"] = sidecar_path(f.path)
    check_outputs(inputs, named)
    for f in files if not args.overwrite else ():
        side = foreign_sidecar(f.path) if f.format == "csv" else None
        if side:
            raise OutputFileError(f"-o {side}: is there already and is not a JSON sidecar "
                                  f"SSD Lab wrote (the sidecar of {f.path}); pass --overwrite "
                                  "to replace it, or name another -o file")
        # in a folder the person named only the folder: its files are theirs unless ours
        if len(files) > 1 and os.path.lexists(f.path) and not is_own_export(f.path):
            raise OutputFileError(f"-o {f.path}: is there already and is not a chart SSD Lab "
                                  "wrote; pass --overwrite to replace it, or name another "
                                  "folder")
    for f in files:
        try:
            check_export(f.path, f.format, args.width)
        except OutputFileError as e:
            raise OutputFileError(str(e) if str(e).startswith("-o") else f"-o {e}") from None
    return files


def write_all(files: list[Output], tables: dict, args: argparse.Namespace,
              provenance: dict) -> list[str]:
    """Write each planned file from its chart's table; the paths written."""
    from ssdlab.app.chartexport import Export, write

    written = []
    for f in files:
        written += write(f.path, tables[f.chart], Export(f.format, args.width, provenance,
                                                         args.title, args.timestamp))
    return written


def folder_of(files: list[Output]) -> str:
    """The folder the planned files go to: what provenance paths are relative to."""
    return os.path.dirname(files[0].path) or "."


def relative(path: str, base: str) -> str:
    """`path` relative to the folder `base`, forward slashes (a command run in `base`)."""
    try:
        return os.path.relpath(os.path.abspath(path), os.path.abspath(base)).replace(os.sep,
                                                                                 "/")
    except ValueError:  # another drive (Windows): no relative path exists
        return os.path.basename(path)


def reproduce(args: argparse.Namespace, words: list[str], files: list[Output]) -> dict:
    """The command that writes these files again, run in their folder: `words` (the
    subcommand, its source relative to the folder, its own options), then the outputs'
    options as given."""
    fmts = list(dict.fromkeys(f.format for f in files))
    out = os.path.basename(files[0].path) if len(files) == 1 else "."
    line = ["ssdlab", *words, "--format", ",".join(fmts), "--width", args.width, "-o", out]
    if not args.title:
        line.append("--no-title")
    if args.timestamp:
        line.append("--timestamp")
    return {"command": line, "run_in": "the folder holding this file"}

