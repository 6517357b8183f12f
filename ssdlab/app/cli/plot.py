"""`ssdlab plot RESULTS.jsonl --x FIELD --y FIELD [--by FIELD] [--facet FIELD] -o FILE`: any
field of a sweep's results against any other, one line per value of --by and a panel per
value of --facet, each point summarised over seed repeats with min-to-max error bars
(ssdlab/model/lab/plottable.py). The same formats, styles, provenance and sidecar as `ssdlab chart`
(ssdlab/app/chartexport.py, ssdlab/app/cli/figureoutputs.py).

A field the results do not hold is refused with exit status 2, naming it and listing those
they hold; so is a y that is not a number, and a point field that varies but is on no axis
(it would be averaged away). A non-numeric x (gc, mapping) is drawn as categories.
"""

from __future__ import annotations

import argparse
import sys

from ssdlab.app.cli.args import existing_file
from ssdlab.app.cli.figureoutputs import add_options

PROG = "ssdlab plot"


def add_parser(sub) -> None:
    p = sub.add_parser("plot", help="plot any field of a sweep's results against another",
                       description="Draw FIELD against FIELD from a sweep's results file "
                       "(ssdlab sweep -o RESULTS.jsonl): one line per value of --by, one "
                       "panel per value of --facet, repeats over seeds as the mean with "
                       "min-to-max error bars; PNG, SVG, PDF, or CSV with a JSON sidecar.")
    p.add_argument("results", type=existing_file, metavar="RESULTS.jsonl",
                   help="a sweep's results file")
    p.add_argument("--x", required=True, metavar="FIELD", help="the field along x")
    p.add_argument("--y", required=True, metavar="FIELD", help="the field along y (a number)")
    p.add_argument("--by", metavar="FIELD", help="one line per value of this field")
    p.add_argument("--facet", metavar="FIELD", help="one panel per value of this field")
    add_options(p, "several formats")


def _fail(message: str) -> int:
    print(f"{PROG}: error: {message}", file=sys.stderr)
    return 2


def main(args: argparse.Namespace) -> int:
    from ssdlab.app.atomicfile import OutputFileError
    from ssdlab.app.cli.chart import results_provenance, warn_failed
    from ssdlab.app.cli.figureoutputs import folder_of, plan, relative, reproduce, write_all
    from ssdlab.model.lab.plottable import PlotError, plot_tables
    from ssdlab.model.lab.sweeprun import ResultsError, read_results

    try:
        files = plan(args, ["plot"], {"sweep results": args.results})
    except OutputFileError as e:
        return _fail(str(e) if str(e).startswith("-o") else f"-o {e}")
    try:
        records = list(read_results(args.results).records.values())
    except (ResultsError, OSError, UnicodeDecodeError) as e:
        return _fail(f"{args.results}: {e}" if isinstance(e, OSError) else str(e))
    try:
        table = plot_tables(records, args.x, args.y, args.by, args.facet)
    except PlotError as e:
        return _fail(f"{args.results}: {e}")
    axes = {"x": args.x, "y": args.y, "by": args.by, "facet": args.facet}
    warn_failed(PROG, [table])
    words = ["plot", relative(args.results, folder_of(files))]
    for k, v in axes.items():
        words += [f"--{k}", v] if v else []
    provenance = {**results_provenance(args.results, records, folder_of(files)),
                  "plot": {k: v for k, v in axes.items() if v},
                  **reproduce(args, words, files)}
    try:
        written = write_all(files, {"plot": table}, args, provenance)
    except OutputFileError as e:
        return _fail(str(e) if str(e).startswith("-o") else f"-o {e}")
    print(f"wrote {', '.join(written)}")
    return 0
