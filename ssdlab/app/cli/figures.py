"""`ssdlab figures -o DIR [--small]`: regenerate, headless, the gallery of reference figures
(ssdlab/model/lab/gallery.py): each as PDF, PNG and SVG with a CSV and its JSON sidecar, and an
index (index.json and README.md in DIR) saying what each figure shows and where it comes
from.

DIR must be new, empty, or a gallery figures wrote before (its index.json says so): the
command never replaces files it did not make. Each figure's files and the index listing it
are written together (ssdlab/app/atomicfile.py write_together): all whole on disk before any
replaces an older one, so a full disk, an error or Ctrl+C (status 130) leaves DIR as the
previous figure left it, and a temporary file a killed run left is removed by the next.
Progress goes to stderr. --small runs every figure at a reduced scale (CI: seconds).
"""

from __future__ import annotations

import argparse
import json
import os
import stat
import sys
import time

FIGURE_FORMATS = ("pdf", "png", "svg", "csv")
INDEX, README = "index.json", "README.md"
INTERRUPTED = 130  # 128 + SIGINT, as a shell reports Ctrl+C


def add_parser(sub) -> None:
    p = sub.add_parser("figures", help="regenerate the gallery of reference figures",
                       description="Run the lessons' and the documented experiments' "
                       "reference figures headless and write each as PDF, PNG and SVG "
                       "with a CSV, its JSON sidecar and an index (index.json, README.md).")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="the folder to write: new, empty, or one figures wrote before "
                   "(its files of the same names are replaced)")
    p.add_argument("--small", action="store_true",
                   help="reduced runs, fast enough for CI (the figures' shapes, not their "
                   "published scale)")
    p.add_argument("--only", metavar="NAME", action="append",
                   help="only this figure (repeatable); default: all")


def check_folder(path: str) -> str | None:
    """Why DIR cannot take the gallery (one line naming -o), or None."""
    if os.path.lexists(path):
        try:
            mode = os.stat(path).st_mode
        except OSError as e:
            return f"-o {path}: cannot be read: {e.strerror}"
        if not stat.S_ISDIR(mode):
            kind = "a FIFO" if stat.S_ISFIFO(mode) else "a file" if stat.S_ISREG(mode) \
                else "a device or special file"
            return f"-o {path}: is {kind}, not a folder; name a folder (made if missing)"
        if not os.access(path, os.W_OK | os.X_OK):
            return f"-o {path}: the folder cannot be written"
        return _not_a_gallery(path)
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        return f"-o {path}: its parent folder {parent} does not exist"
    if not os.access(parent, os.W_OK | os.X_OK):
        return f"-o {path}: cannot be made: the folder {parent} cannot be written"
    return None


def _names() -> list[str]:
    """Every file name figures writes in DIR."""
    from ssdlab.model.lab.gallery import FIGURES

    return [INDEX, README] + [f"{f.name}.{fmt}" for f in FIGURES
                              for fmt in (*FIGURE_FORMATS, "json")]


def _not_a_gallery(path: str) -> str | None:
    """Why an existing folder is not one figures may write into, or None: it is empty, or
    its index.json is a gallery index (figures made what is there)."""
    from ssdlab.model.partialfiles import prefix_for, reap

    for name in _names():  # a killed run's temporary files are not the person's
        reap(path, prefix_for(name))
    if not os.listdir(path) or _own_index(os.path.join(path, INDEX)):
        return None
    return (f"-o {path}: holds files figures did not make (no gallery {INDEX} there), which "
            "it would replace; name a new or empty folder, or one figures wrote before")


def _own_index(path: str) -> bool:
    """Whether `path` is an index.json figures wrote."""
    from ssdlab.model.inputfile import InputFileError, read_input

    try:
        index = json.loads(read_input(path))
    except (InputFileError, ValueError, RecursionError):
        return False
    return isinstance(index, dict) and isinstance(index.get("ssdlab_version"), str) \
        and isinstance(index.get("scale"), str) and isinstance(index.get("figures"), list)


def main(args: argparse.Namespace) -> int:
    from ssdlab.app.atomicfile import OutputFileError
    from ssdlab.model.lab.gallery import FIGURES, SCALES

    def fail(message: str) -> int:
        print(f"ssdlab figures: error: {message}", file=sys.stderr)
        return 2

    names = [f.name for f in FIGURES]
    for name in args.only or ():
        if name not in names:
            return fail(f"--only {name}: is not a gallery figure; choose from "
                        f"{', '.join(names)}")
    problem = check_folder(args.output)
    if problem:
        return fail(problem)
    try:
        os.makedirs(args.output, exist_ok=True)
    except OSError as e:
        return fail(f"-o {args.output}: cannot be written: {e.strerror}")
    scale_name = "small" if args.small else "full"
    chosen = [f for f in FIGURES if not args.only or f.name in args.only]
    try:
        done = _draw_all(chosen, SCALES[scale_name], scale_name, args.output)
    except KeyboardInterrupt:
        print("\nssdlab figures: interrupted; the figures finished so far are in "
              f"{args.output}", file=sys.stderr)
        return INTERRUPTED
    except OutputFileError as e:  # a full disk: what was written before is whole
        return fail(f"-o {e}; the figures finished before are kept")
    n = len(done)
    print(f"wrote {n} figure{'' if n == 1 else 's'} to {args.output} (index.json, README.md)")
    return 0


def _draw_all(chosen, scale, scale_name: str, out: str) -> list[dict]:
    from ssdlab.app.atomicfile import write_together
    from ssdlab.app.chartexport import Export, contents, version
    from ssdlab.model.lab.galleryrun import BUILDERS

    done = []
    show = sys.stderr.isatty()  # a line redrawn per run; into a file, one line per figure
    for i, fig in enumerate(chosen, 1):
        t0 = time.perf_counter()

        def progress(k: int, total: int, i=i, fig=fig) -> None:
            print(f"\rfigure {i}/{len(chosen)} {fig.name}: run {k} of {total}\033[K",
                  end="", file=sys.stderr, flush=True)

        if show:
            progress(0, 1)
        else:
            print(f"figure {i}/{len(chosen)} {fig.name} ...", file=sys.stderr, flush=True)
        table, provenance = BUILDERS[fig.name](scale, progress if show else None)
        provenance = {"gallery": {"figure": fig.name, "scale": scale_name,
                                  "shows": fig.shows, "comes_from": fig.comes_from},
                      **provenance,
                      # run in the gallery's folder, it draws this figure again
                      "command": ["ssdlab", "figures", "-o", ".", "--only", fig.name,
                                  *(["--small"] if scale_name == "small" else [])],
                      "run_in": "the folder holding this file"}
        files = []
        for fmt in FIGURE_FORMATS:
            files += contents(os.path.join(out, f"{fig.name}.{fmt}"), table,
                              Export(fmt, "single", provenance))
        _add(done, fig, table, [os.path.basename(p) for p, _ in files])
        # the index first: a run killed between renames leaves a folder figures owns
        index, readme = _index_files(out, done, scale_name, version())
        write_together([index, *files, readme])
        line = f"figure {i}/{len(chosen)} {fig.name}: done in {time.perf_counter() - t0:.1f} s"
        print(f"\r{line}\033[K" if show else line, file=sys.stderr, flush=True)
    return done


def _add(done: list[dict], fig, table, files: list[str]) -> None:
    """The figure's entry in the index."""
    done.append({"name": fig.name, "title": table.chart.title, "shows": fig.shows,
                 "comes_from": fig.comes_from,
                 "cites": [{**{k: v for k, v in vars(c).items() if v}, "says": claim}
                           for c, claim in zip(fig.cites, fig.claims, strict=True)],
                 "numbers": "simulated", "files": files})


_TEXT_FIELDS = ("name", "title", "shows", "comes_from", "numbers")
_CITE_FIELDS = ("article", "figure", "unit", "quote", "says")


def _well_formed(entry: object) -> bool:
    """Whether an index entry has the shape _add writes (the README is made from it)."""
    if not (isinstance(entry, dict) and all(isinstance(entry.get(k), str)
                                            for k in _TEXT_FIELDS)):
        return False
    files, cites = entry.get("files"), entry.get("cites", [])
    return (isinstance(files, list) and all(isinstance(n, str) and n and os.sep not in n
                                            and n not in (".", "..") for n in files)
            and isinstance(cites, list) and all(
                isinstance(c, dict) and isinstance(c.get("article"), str)
                and all(isinstance(c.get(k, ""), str) for k in _CITE_FIELDS) for c in cites))


def _kept(out: str, scale_name: str, drawn: set[str]) -> list[dict]:
    """The entries of DIR's index.json for figures not drawn now, at the same scale, whose
    files are all there (an unreadable or foreign index, or an entry of another shape,
    keeps nothing: the index is read as input, never trusted)."""
    from ssdlab.model.inputfile import InputFileError, read_text_input
    from ssdlab.model.lab.gallery import FIGURES

    try:
        old = json.loads(read_text_input(os.path.join(out, "index.json")))
    except (InputFileError, ValueError, RecursionError):
        return []
    if not isinstance(old, dict) or old.get("scale") != scale_name \
            or not isinstance(old.get("figures"), list):
        return []
    known = {f.name for f in FIGURES} - drawn
    return [d for d in old["figures"] if _well_formed(d) and d["name"] in known and all(
        os.path.isfile(os.path.join(out, n)) for n in d["files"])]


def _index_files(out: str, done: list[dict], scale_name: str, tool_version: str
                 ) -> tuple[tuple[str, str], tuple[str, str]]:
    """index.json and README.md as (path, text): the figures finished so far."""
    from ssdlab.model.lab.gallery import FIGURES

    # figures drawn before at this scale (an --only run) stay listed while their files do
    done = _kept(out, scale_name, {d["name"] for d in done}) + done
    order = [f.name for f in FIGURES]
    done.sort(key=lambda d: order.index(d["name"]))
    index = {"ssdlab_version": tool_version, "scale": scale_name, "figures": done}
    lines = ["# SSD Lab figure gallery", "",
             f"Regenerated by `ssdlab figures` (SSD Lab {tool_version}, {scale_name} scale). "
             "Every number in these figures is simulated; an article is named only for what "
             "it says, as it says it (listed under each figure).", ""]
    for d in done:
        lines += [f"## {d['title']} (`{d['name']}`)", "", f"Shows {d['shows']}.", "",
                  f"From: {d['comes_from']}."]
        lines += [""] if d.get("cites") else []
        for c in d.get("cites", []):  # each as the article writes it
            written = (f'"{c["quote"]}"' if c.get("quote")
                       else f"{c.get('figure', '')} {c.get('unit', '')}".strip())
            lines.append(f"- article {c['article']}: {written} ({c.get('says', '')})")
        lines += ["", "Files: " + ", ".join(d["files"]), ""]
    return ((os.path.join(out, INDEX), json.dumps(index, indent=2) + "\n"),
            (os.path.join(out, README), "\n".join(lines)))
