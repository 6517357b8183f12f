"""Where a field sits in TOML text: tomllib gives values but no line numbers, so error
messages find the line of a key path (such as ("steps", 3, "choices", 1, "range")) by
scanning the text's table headers and keys the way TOML nests them.

Best effort by design: a key inside an inline table or an inline array of tables resolves to
the line of the nearest enclosing key the scan did see.
"""

from __future__ import annotations

import re

Path = tuple  # of str keys and int array indices

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
_PART = r"""(?:[A-Za-z0-9_-]+|"[^"]*"|'[^']*')"""
_KEY = re.compile(rf"^\s*({_PART}(?:\s*\.\s*{_PART})*)\s*=")


def _split_dotted(key: str) -> list[str]:
    parts = re.findall(r"""[A-Za-z0-9_-]+|"[^"]*"|'[^']*'""", key)
    return [p[1:-1] if p[:1] in "\"'" else p for p in parts]


class LineIndex:
    """Maps key paths of a TOML document to 1-based line numbers."""

    def __init__(self, text: str):
        self.lines: dict[Path, int] = {}
        counts: dict[Path, int] = {}  # array-of-tables path -> elements seen
        current: Path = ()
        open_quote = None  # the delimiter of a multi-line string being skipped
        for number, raw in enumerate(text.splitlines(), start=1):
            if open_quote is not None:
                if raw.count(open_quote) % 2 == 1:
                    open_quote = None
                continue
            header = _HEADER.match(raw)
            if header:
                names = _split_dotted(header.group(2))
                current = self._resolve(names, counts, array=header.group(1) == "[[")
                self.lines.setdefault(current, number)
                if header.group(1) == "[[":  # the array itself: its first element's line
                    self.lines.setdefault(current[:-1], number)
                continue
            key = _KEY.match(raw)
            if key:
                path = current + tuple(_split_dotted(key.group(1)))
                self.lines.setdefault(path, number)
                rest = raw[key.end():]
                for quote in ('"""', "'''"):
                    if rest.count(quote) % 2 == 1:
                        open_quote = quote
                        break

    def _resolve(self, names: list[str], counts: dict[Path, int], array: bool) -> Path:
        """The full path of a header, each array-of-tables prefix at its latest element."""
        path: Path = ()
        for i, name in enumerate(names):
            path = path + (name,)
            last = i == len(names) - 1
            if last and array:
                index = counts.get(path, 0)
                counts[path] = index + 1
                path = path + (index,)
            elif path in counts:
                path = path + (counts[path] - 1,)
        return path

    def line_of(self, path: Path) -> int:
        """The line of path, or of its nearest enclosing key found; 1 if none."""
        path = tuple(path)
        while path:
            if path in self.lines:
                return self.lines[path]
            path = path[:-1]
        return 1


def path_text(path: Path) -> str:
    """steps[3].choices[1].range: how error messages spell a key path (0-based indices)."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out
