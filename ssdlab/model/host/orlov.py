"""Where ext4 puts new inodes and the first blocks of new files: the Orlov allocator.

Measured on Linux 6.18 (tests/recordings/ext4_repo_*.json and ext4_rounds_*.json, the
per-group free blocks after each step) and as fs/ext4/ialloc.c and fs/ext4/extents.c say,
with flex_bg (16 groups share one metadata area):

- a top-level directory goes to a flex group chosen from a hash of its name among the flex
  groups with at least the average free inodes and free blocks, preferring the one with the
  fewest directories (find_group_orlov); a subdirectory stays in its parent's flex group
  unless that one is crowded or nearly full;
- a file's inode goes to its directory's flex group (find_group_other); every inode is
  packed into the first group of its flex group that has a free inode;
- the first block of a directory is sought from the start of its flex group, the first
  block of a regular file from the start of the flex group's second group
  (ext4_inode_to_goal_block: "regular files will start at the second block group"), so on
  a file system of 16 groups or fewer all file data starts in group 1 and group 0 keeps
  the directories; a file of 16 blocks or more continues from where the last such file
  ended when its goal is taken (mballoc's stream allocation).

A file system with one flex group (up to 2 GiB) therefore never touches groups beyond the
data it holds, and a later fstrim finds whole groups it trimmed before untouched.
"""

from __future__ import annotations

import zlib

import numpy as np

from .ext4layout import FLEX_GROUPS


def flex_first(g: int) -> int:
    """First group of g's flex group."""
    return g - g % FLEX_GROUPS


def _flex_sums(per_group: np.ndarray) -> np.ndarray:
    """Sums over each flex group of a per-group array."""
    pad = -len(per_group) % FLEX_GROUPS
    return np.concatenate([per_group, np.zeros(pad, per_group.dtype)]).reshape(
        -1, FLEX_GROUPS).sum(axis=1)


def _flex_stats(fs) -> list[tuple[int, int, int]]:
    """Per flex group: (free inodes, free blocks, directories). numpy over the groups, so a
    mkdir on a drive of thousands of groups stays cheap."""
    return list(zip(_flex_sums(fs.free_inodes).tolist(),
                    _flex_sums(np.asarray(fs.alloc.group_free)).tolist(),
                    _flex_sums(fs.dirs_in_group).tolist(), strict=True))


def _first_with_inode(fs, flex: int) -> int:
    """The first group of a flex group that has a free inode (the flex group's first group
    if none has: the inode search then moves on from there)."""
    first = flex * FLEX_GROUPS
    for g in range(first, min(first + FLEX_GROUPS, fs.layout.groups)):
        if fs.free_inodes[g]:
            return g
    return first


def top_dir_group(fs, name: str) -> int:
    """Group of a new top-level directory's inode. crc32 stands for the kernel's salted
    name hash: it spreads names the same way in every run."""
    stats = _flex_stats(fs)
    n = len(stats)
    ave_i = sum(s[0] for s in stats) / n
    ave_b = sum(s[1] for s in stats) / n
    start = zlib.crc32(name.encode()) % n
    best, best_dirs = start, None
    for k in range(n):
        f = (start + k) % n
        free_i, free_b, dirs = stats[f]
        if free_i == 0 or free_i < ave_i or free_b < ave_b:
            continue
        if best_dirs is None or dirs < best_dirs:
            best, best_dirs = f, dirs
    return _first_with_inode(fs, best)


def sub_dir_group(fs, parent_group: int) -> int:
    """Group of a new subdirectory's inode: the parent's flex group unless it is crowded
    (more than its share of directories) or short of free blocks or inodes."""
    stats = _flex_stats(fs)
    n = len(stats)
    layout = fs.layout
    ave_i = sum(s[0] for s in stats) / n
    ave_b = sum(s[1] for s in stats) / n
    max_dirs = sum(s[2] for s in stats) / n + layout.inodes_per_group * FLEX_GROUPS / 16
    min_i = ave_i - layout.inodes_per_group * FLEX_GROUPS / 4
    min_b = ave_b - layout.blocks_per_group * FLEX_GROUPS / 4
    start = parent_group // FLEX_GROUPS
    for k in range(n):
        f = (start + k) % n
        free_i, free_b, dirs = stats[f]
        if dirs < max_dirs and free_i >= min_i and free_b >= min_b and free_i:
            return _first_with_inode(fs, f)
    return _first_with_inode(fs, start)


def file_group(fs, parent_group: int) -> int:
    """Group of a new file's inode: the first group of its directory's flex group with a
    free inode."""
    return _first_with_inode(fs, parent_group // FLEX_GROUPS)


def first_goal(layout, group: int, is_dir: bool) -> int:
    """Block from which the first extent of a new file or directory whose inode is in
    group is sought."""
    g = flex_first(group)
    if not is_dir and g + 1 < layout.groups:
        g += 1
    return layout.group_start(g)
