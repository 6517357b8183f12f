"""numba's on-disk cache of the compiled engine, checked: a bad entry is compiled again.

numba keeps each function as an index (.nbi) and data files (.nbc), pickles it loads with no
check: a garbage, truncated or empty file raised out of the first call of the engine and so
killed every simulating command; a folder in a file's place stopped it saving; a pipe (FIFO)
made the open wait for ever; a link to /dev/zero filled memory. Here each function's files
are screened before numba opens them (anything but a regular file of a sane size is
removed), and a load that fails for any reason removes that function's files and returns
"not cached", so numba compiles it and saves it afresh.

numba, left to choose, also writes its cache beside the sources (__pycache__ in the
checkout) when the folder it was given cannot be written; the checked cache has only the
folder compiled.py names, and with no usable folder the engine is compiled every run
rather than written into the source tree.

The cache still loads pickles: whoever can write in the cache folder can run code in SSD
Lab, as with any numba cache. The folder is the user's own (ssdlab/model/cachedir.py).
"""

from __future__ import annotations

import inspect
import os
import stat
from pathlib import Path

from numba.core import config
from numba.core.caching import (
    CompileResultCacheImpl,
    FunctionCache,
    NullCache,
    UserProvidedCacheLocator,
)

from ssdlab.model.cachedir import discard, folder

# The largest engine data file is under 1 MiB; a file far beyond that is not one of ours.
MAX_FILE_BYTES = 64 * 2**20

# Files this process found bad and removed, for `ssdlab prepare` to report.
discarded: list[str] = []


class _OwnFolderOnly(CompileResultCacheImpl):
    # Only the folder numba.config.CACHE_DIR names: never __pycache__ in the source tree,
    # never numba's own user-wide folder.
    _locator_classes = [UserProvidedCacheLocator]


class CheckedCache(FunctionCache):
    """A FunctionCache that screens its files and treats any failure to load as a miss."""

    _impl_class = _OwnFolderOnly

    def _files(self) -> list[str]:
        """This function's index and data files in the cache folder."""
        index = self._cache_file._index_name
        stem = index[: -len(".nbi")] + "."
        try:
            names = os.listdir(self._cache_path)
        except OSError:
            return []
        return [os.path.join(self._cache_path, n) for n in names
                if n == index or (n.startswith(stem) and n.endswith(".nbc"))]

    def _forget(self, paths: list[str]) -> None:
        for path in paths:
            discard(path)
            discarded.append(path)

    def screen(self) -> None:
        """Remove this function's files that are not regular files of a sane size."""
        bad = []
        for path in self._files():
            try:
                st = os.lstat(path)
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_FILE_BYTES:
                bad.append(path)
        self._forget(bad)

    def load_overload(self, sig, target_context):
        self.screen()
        try:
            return super().load_overload(sig, target_context)
        except Exception:  # noqa: BLE001 - any bad pickle means "compile it again"
            self._forget(self._files())
            return None

    def save_overload(self, sig, data):
        self.screen()
        try:
            super().save_overload(sig, data)
        except OSError:
            pass  # not kept: the next run compiles it again, nothing else is lost

    def has(self, sig, codegen) -> bool:
        """Whether sig would load from the cache: its index and data file read as pickles
        (the same check numba's load starts with), without building any machine code."""
        self.screen()
        try:
            key = self._index_key(sig, codegen)
            name = self._cache_file._load_index().get(key)
            if name is None:
                return False
            self._cache_file._load_data(name)
        except Exception:  # noqa: BLE001 - unreadable: it will be compiled again
            self._forget(self._files())
            return False
        return True


def install(dispatcher) -> None:
    """Give a cache=True dispatcher the checked cache (no cache at all when the folder
    cannot be used: compiling every run beats writing into the source tree)."""
    if config.CACHE_DIR:  # numba's folder for this source file: a folder, nothing else
        sub = UserProvidedCacheLocator.get_suitable_cache_subpath(
            inspect.getfile(dispatcher.py_func))
        folder(Path(config.CACHE_DIR, sub))
    try:
        dispatcher._cache = CheckedCache(dispatcher.py_func)
    except RuntimeError:  # numba: no locator available, i.e. the folder is unusable
        dispatcher._cache = NullCache()
