"""A screen reader's side of tests/_atspi_app.py, in a process of its own:

    python tests/_atspi_reader.py tree ADDRESS    the application's whole tree, as JSON
    python tests/_atspi_reader.py listen ADDRESS  "listening", then a line for each
        announcement or focus change heard: seconds (monotonic) TAB words
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _atspi import Tree  # noqa: E402


def main(what: str, address: str) -> None:
    tree = Tree(address)
    apps = tree.apps()
    if what == "tree":
        nodes = [n for dest, path in apps for n in tree.walk(dest, path)]
        print(json.dumps(nodes))
        return
    tree.listen()
    print("listening", flush=True)
    while True:
        for words in tree.heard(0.2):
            print(f"{time.monotonic():.3f}\t{words}".replace("\n", " "), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
