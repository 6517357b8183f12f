"""Kernel trees kept on disk: a tree read back is the tree drawn, file for file; a file that
is not a tree is drawn over; a cache that cannot be written still gives the tree."""

from __future__ import annotations

from ssdlab.model.host import filetree, treecache


def _drawn(scale: float, seed: int) -> list:
    filetree._TREES.clear()  # the process's own trees would hide the disk
    return filetree.kernel_tree(scale, seed)


def test_a_kept_tree_is_the_tree_drawn(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    drawn = _drawn(0.05, 7)
    (path,) = (tmp_path / "ssdlab" / "trees").glob("kernel-0.05-7-*.json")
    monkeypatch.setattr(filetree, "_build_kernel_tree", lambda *a: 1 / 0)  # must not draw
    assert _drawn(0.05, 7) == drawn
    assert treecache.load(0.05, 7) == ([f.path for f in drawn], [f.size_bytes for f in drawn])
    assert path.exists()


def test_a_file_that_is_not_a_tree_is_drawn_over(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    drawn = _drawn(0.05, 8)
    (path,) = (tmp_path / "ssdlab" / "trees").glob("kernel-0.05-8-*.json")
    for text in ('{"paths": ["a"], "sizes": [1, 2]}', '{"paths": ["a"]}', "[{not json"):
        path.write_text(text)
        assert treecache.load(0.05, 8) is None
        assert _drawn(0.05, 8) == drawn


def test_a_cache_that_cannot_be_written_still_gives_the_tree(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    drawn = _drawn(0.05, 9)
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))  # a file where a folder must go
    monkeypatch.setattr("tempfile.tempdir", str(tmp_path / "tmp"))
    (tmp_path / "tmp").mkdir()
    assert _drawn(0.05, 9) == drawn
    # kept instead in a temporary folder of this user's, with a warning
    assert "cannot be used" in capsys.readouterr().err
    assert list((tmp_path / "tmp").glob("ssdlab-cache-*/trees/kernel-0.05-9-*.json"))
