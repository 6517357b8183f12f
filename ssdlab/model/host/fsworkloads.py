"""File-level workloads named after the documented experiments, run on a Machine.

Each function performs file operations and prices the CPU side with the host profile; the
file system and drive do the rest. Durations that no source documents (how long a clone or
a build runs, which decides how many 5-second journal commits happen) are parameters with
stated defaults, not fitted values.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence

import numpy as np

from .filesystem import ROOT_INO
from .filetree import (
    PACK_RATIO,
    Cancelled,
    FileSpec,
    clone_outputs,
    directories,
    make_schedule,
    makefiles,
    output_paths,
)
from .machine import Machine

# Assumed durations of the seed-002 steps on a 2009 dual-core machine (not documented).
CLONE_SECONDS = 180.0  # fetch and check out a kernel repository
MAKE_SECONDS = 1500.0  # make -j2 of a 2.6.29 kernel
MAKE_CLEAN_SECONDS = 8.0
CHUNK_BYTES = 1 << 20


class Tree:
    """Path -> inode for one directory tree created by these workloads."""

    def __init__(self, machine: Machine, top: str):
        self.m = machine
        self.top = top
        self.dirs: dict[str, int] = {}
        self.files: dict[str, int] = {}

    def ensure_dir(self, path: str) -> int:
        if path in self.dirs:
            return self.dirs[path]
        fs = self.m.fs
        parent_path, _, name = path.rpartition("/")
        parent = self.ensure_dir(parent_path) if parent_path else ROOT_INO
        entries = fs.inodes[parent].entries
        ino = entries[name][0] if name in entries else fs.mkdir(parent, name)
        if not fs.inodes[ino].is_dir:  # an archive with a file where a directory goes
            raise NotADirectoryError(20, f"{path} is a file, not a directory")
        self.m.cpu(self.m.host.per_dir_us * 1e-6)
        self.dirs[path] = ino
        return ino

    def create(self, spec: FileSpec, seconds: float | None = None) -> int:
        parent_path, _, name = (self.top + "/" + spec.path).rpartition("/")
        parent = self.ensure_dir(parent_path)
        ino = self.m.fs.create(parent, name, spec.size_bytes)
        self.files[spec.path] = ino
        host = self.m.host
        if seconds is None:
            seconds = host.per_file_create_us * 1e-6 + spec.size_bytes / (host.copy_mb_s * 1e6)
        self.m.cpu(seconds)
        return ino

    def delete(self, path: str) -> None:
        parent_path, _, name = (self.top + "/" + path).rpartition("/")
        self.m.fs.unlink(self.dirs[parent_path], name)
        del self.files[path]
        self.m.cpu(self.m.host.per_file_delete_us * 1e-6)


def unpack_steps(m: Machine, files: Sequence[FileSpec], top: str = "linux"
                 ) -> Iterator[int]:
    """tar x of a tree into the page cache (directories first, then files in order),
    yielding the number of files created after each one: a caller can pause between."""
    tree = Tree(m, top)
    tree.ensure_dir(top)
    for d in directories(files):
        tree.ensure_dir(top + "/" + d)
    m.last_tree = tree
    for i, spec in enumerate(files, 1):
        tree.create(spec)
        yield i


def unpack(m: Machine, files: Sequence[FileSpec], top: str = "linux") -> Tree:
    for _ in unpack_steps(m, files, top):
        pass
    return m.last_tree


def remove_tree_steps(m: Machine, top: str = "linux") -> Iterator[int]:
    """rm -rf of a top-level directory: read each directory, unlink its files, then remove
    it, depth first; yields the number of files unlinked after each one."""
    fs = m.fs
    done = 0
    delete_s, dir_s = m.host.per_file_delete_us * 1e-6, m.host.per_dir_us * 1e-6
    # depth first with a stack instead of nested generators, so a yield from deep in the
    # tree does not pass up through every level: (parent, name, inode, entries left)
    ino = fs.lookup(ROOT_INO, top)
    stack = [(ROOT_INO, top, ino, iter(fs.readdir(ino)))]
    while stack:
        parent, name, ino, children = stack[-1]
        for child in children:
            child_ino = fs.lookup(ino, child)
            if fs.inodes[child_ino].is_dir:
                stack.append((ino, child, child_ino, iter(fs.readdir(child_ino))))
                break
            fs.unlink(ino, child)
            m.cpu(delete_s)
            done += 1
            yield done
        else:
            stack.pop()
            fs.rmdir(parent, name)
            m.cpu(dir_s)


def remove_tree(m: Machine, top: str = "linux") -> None:
    for _ in remove_tree_steps(m, top):
        pass


def git_clone_steps(m: Machine, outputs: Sequence[FileSpec], top: str = "linux",
                    seconds: float = CLONE_SECONDS) -> Iterator[int]:
    """git clone: the pack, its index and the checked-out tree (outputs: clone_outputs of
    the tree), spread over `seconds`; yields files written so far. m.last_tree is the
    Tree."""
    tree = Tree(m, top)
    tree.ensure_dir(top)
    for d in directories(outputs):
        tree.ensure_dir(top + "/" + d)
    m.last_tree = tree
    per_file = seconds / len(outputs)
    for i, spec in enumerate(outputs, 1):
        tree.create(spec, per_file)
        yield i


def git_clone(m: Machine, files: Sequence[FileSpec], top: str = "linux",
              seconds: float = CLONE_SECONDS, pack_ratio: float = PACK_RATIO) -> Tree:
    for _ in git_clone_steps(m, clone_outputs(files, pack_ratio), top, seconds):
        pass
    return m.last_tree


def make_steps(m: Machine, tree: Tree, units: Sequence, seconds: float = MAKE_SECONDS
               ) -> Iterator[int]:
    """make over units (make_schedule of the tree's files): each unit reads its sources
    (atime) and writes its object, over `seconds`; yields units done."""
    per_unit = seconds / len(units)
    fs = m.fs
    for i, unit in enumerate(units, 1):
        for path in unit.reads:
            ino = tree.files.get(path)
            if ino is not None:
                fs.read(ino)
        for spec in unit.writes:
            parent_path = (tree.top + "/" + spec.path).rpartition("/")[0]
            tree.ensure_dir(parent_path)
            tree.create(spec, 0.0)
        m.cpu(per_unit)
        yield i


def make(m: Machine, tree: Tree, files: Sequence[FileSpec],
         seconds: float = MAKE_SECONDS, targets: Sequence[str] = ()) -> None:
    for _ in make_steps(m, tree, make_schedule(files, targets=targets), seconds):
        pass


def make_clean_targets(tree: Tree, files: Sequence[FileSpec], read_makefiles: bool = True
                       ) -> tuple[list[int], list[str], list[int]]:
    """What make clean visits: the tree's directories (inodes), the build outputs that
    exist (paths) and the Makefiles it reads on the way (inodes; none when
    read_makefiles is False: a walk that only lists directories)."""
    outputs = [path for path in output_paths(files) if path in tree.files]
    dirs = [ino for path, ino in tree.dirs.items() if path.startswith(tree.top)]
    reads = [tree.files[p] for p in makefiles(files) if p in tree.files] \
        if read_makefiles else []
    return dirs, outputs, reads


def make_clean_steps(m: Machine, tree: Tree, targets: tuple, seconds: float =
                     MAKE_CLEAN_SECONDS) -> Iterator[int]:
    """make clean: descend the tree reading each directory and its Makefile (atime, as
    the mount's atime rule says), then delete every build output; yields operations
    done."""
    dirs, outputs, reads = targets
    per_op = seconds / max(1, len(outputs) + len(dirs) + len(reads))
    done = 0
    for ino in dirs:
        m.fs.readdir(ino)
        m.cpu(per_op)
        done += 1
        yield done
    for ino in reads:
        m.fs.read(ino)
        m.cpu(per_op)
        done += 1
        yield done
    for path in outputs:
        tree.delete(path)
        m.cpu(per_op)
        done += 1
        yield done


def make_clean(m: Machine, tree: Tree, files: Sequence[FileSpec],
               seconds: float = MAKE_CLEAN_SECONDS, read_makefiles: bool = True) -> None:
    for _ in make_clean_steps(m, tree, make_clean_targets(tree, files, read_makefiles),
                              seconds):
        pass


def write_file_steps(m: Machine, name: str, size_bytes: int, sync: bool = True
                     ) -> Iterator[int]:
    """dd of size_bytes into a new file in 1 MiB writes, then sync (dd ... ; sync);
    yields the bytes written after each write. m.last_ino is the new file."""
    fs = m.fs
    ino = fs.create(ROOT_INO, name)
    m.last_ino = ino
    done = 0
    while done < size_bytes:
        n = min(CHUNK_BYTES, size_bytes - done)
        fs.write(ino, done, n)
        done += n
        m.cpu(n / (m.host.copy_mb_s * 1e6))
        yield done
    if sync:
        m.sync()


def write_file(m: Machine, name: str, size_bytes: int, sync: bool = True) -> int:
    for _ in write_file_steps(m, name, size_bytes, sync):
        pass
    return m.last_ino


def delete_file(m: Machine, name: str) -> None:
    m.fs.unlink(ROOT_INO, name)
    m.cpu(m.host.per_file_delete_us * 1e-6)


def free_bytes(m: Machine) -> int:
    return m.fs.alloc.free_blocks * 4096


def fill_size(m: Machine, fraction: float) -> int:
    """Bytes one more file must have to make the file system `fraction` full (0 if it is
    already)."""
    if not 0.0 <= fraction < 1.0:
        raise ValueError(f"fill fraction must be between 0 and 1; got {fraction}")
    total = m.fs.layout.total_blocks * 4096
    return max(0, int(fraction * total) - (total - free_bytes(m)))


def free_fill_size(m: Machine, margin: float = 0.01) -> int:
    """Bytes of a file that covers (almost) all free space, in whole blocks."""
    return int(free_bytes(m) * (1.0 - margin)) // 4096 * 4096


def fill_to(m: Machine, fraction: float, name: str = "filler") -> None:
    """Make the file system `fraction` full with one file, written and synced (untimed
    preparation: call it outside a measured step)."""
    want = fill_size(m, fraction)
    if want > 0:
        write_file(m, name, want)


def fill_free_and_delete(m: Machine, name: str = "zero.fill", margin: float = 0.01) -> None:
    """Write a file over (almost) all free space, sync, delete it, sync: with TRIM on, this
    hands every free block back to the drive (seed 003's recovery)."""
    write_file(m, name, free_fill_size(m, margin))
    delete_file(m, name)
    m.sync()


class _ExtentBlocks:
    """Every block of these [start, length] extents, in order, read by index and never
    listed: a year of use holds millions of live blocks and rewrites a tenth of them."""

    def __init__(self, extents: list):
        if not extents:
            raise ValueError("no live file blocks to rewrite")
        self.starts, lengths = np.array(extents, dtype=np.int64).T
        self.ends = np.cumsum(lengths)
        self.before = self.ends - lengths  # blocks of the extents ahead of each
        self.size = int(self.ends[-1])

    def __getitem__(self, index: np.ndarray) -> np.ndarray:
        extent = np.searchsorted(self.ends, index, side="right")
        return self.starts[extent] + (index - self.before[extent])


def user_mix_steps(m: Machine, drive_writes: float, rng: np.random.Generator,
                   files: list[str], serial: list[int], fill: float = 0.6,
                   hot_share: float = 0.0, hot_writes: float = 0.8,
                   tag_rng: np.random.Generator | None = None) -> Iterator[int]:
    """Ordinary use, drive_writes times the drive's capacity in all: files of 64 KiB to
    32 MiB (log-normal) created, and deleted at random while the file system is over
    `fill`; for every byte of new files, a byte of 4 KiB rewrites in place of live files'
    blocks (logs, databases, caches: their metadata does not change). hot_share > 0 makes
    the rewrites skewed: that share of the live blocks takes hot_writes of them. files and
    serial (the next file number) carry the live files from one call to the next. On a
    machine whose host places its data (Machine.placement "hotcold"), the rewrites of hot
    blocks go with handle 1 and everything else with 0, a tag_errors share of the rewritten
    blocks (drawn from tag_rng) the other way round. Yields MB written so far."""
    if not 0.0 <= hot_share < 1.0 or not 0.0 < hot_writes < 1.0:
        raise ValueError(f"hot share must be from 0 to 1 and hot writes between 0 and 1; "
                         f"got {hot_share}, {hot_writes}")
    fs = m.fs
    total = fs.layout.total_blocks * 4096
    budget = drive_writes * m.drive.geometry.user_bytes
    written = 0
    while written < budget:
        churn = 0
        while churn < budget / 20:
            used = total - free_bytes(m)
            if used > fill * total and files:
                delete_file(m, files.pop(int(rng.integers(len(files)))))
            size = int(min(32 * 2**20, 64 * 1024 * np.exp(rng.normal(2.5, 1.5))))
            name = f"u{serial[0]}"
            serial[0] += 1
            write_file(m, name, size, sync=False)
            files.append(name)
            churn += size
            yield int((written + churn) / 1e6)
        m.sync()
        blocks = _ExtentBlocks([e for f in files
                                for e in fs.inodes[fs.lookup(ROOT_INO, f)].extents])
        n = int(churn // 4096)
        if hot_share > 0:
            hot = max(1, int(hot_share * blocks.size))
            pick_hot = rng.random(n) < hot_writes
            picks = np.where(pick_hot, rng.integers(0, hot, n),
                             rng.integers(hot, max(hot + 1, blocks.size), n))
            picks = np.minimum(picks, blocks.size - 1)
            rewrite = blocks[picks]
        else:
            # rng.choice(blocks, size=n) as numpy makes it: n indices, then the blocks
            rewrite = blocks[rng.integers(0, blocks.size, size=n)]
        placed = m.placement == "hotcold" and hot_share > 0 and n > 0
        if placed:
            _tag_rewrites(m, blocks, picks, hot, tag_rng)
        m.dev.write_blocks(rewrite)
        m.sync()
        if placed:
            m.dev.tag_blocks(rewrite, 0)  # the next files' writes go with handle 0 again
        written += 2 * churn
        yield int(written / 1e6)


def _tag_rewrites(m: Machine, blocks: _ExtentBlocks, picks: np.ndarray, hot: int,
                  rng: np.random.Generator | None) -> None:
    """Tag the blocks about to be rewritten: handle 1 for the hot ones (picks below hot),
    0 for the rest, and a tag_errors share of them, drawn from rng, the other way round."""
    unique = np.unique(picks)
    tags = (unique < hot).astype(np.int64)
    if m.tag_errors > 0:
        rng = rng if rng is not None else np.random.default_rng(1)
        wrong = rng.random(unique.size) < m.tag_errors
        tags[wrong] = 1 - tags[wrong]
    m.dev.tag_blocks(blocks[unique], tags)


def user_mix(m: Machine, drive_writes: float, rng: np.random.Generator, files: list[str],
             serial: list[int], **kwargs) -> None:
    for _ in user_mix_steps(m, drive_writes, rng, files, serial, **kwargs):
        pass


def restore_image_steps(m: Machine) -> Iterator[int | None]:
    """dd of a partition image onto the partition, 1 MiB at a time, then sync: the file
    system is the one already there, and every block, free ones too, is written (the drive
    must keep the image's free space as data). Yields MiB written."""
    size = m.fs.layout.total_blocks * 4096
    for i, offset in enumerate(range(0, size, CHUNK_BYTES), 1):
        m.dev.write(offset, min(CHUNK_BYTES, size - offset))
        if i % 64 == 0:
            m.cpu(0.0)  # the Machine sends what is queued
        yield i
    yield from m.sync_steps()


def restore_image(m: Machine) -> None:
    for _ in restore_image_steps(m):
        pass


SYSBENCH_FILES = 128  # sysbench fileio's default --file-num


def sysbench_prepare(m: Machine, total_bytes: int, files: int = SYSBENCH_FILES,
                     name: str = "test_file", cancel: Callable[[], bool] | None = None
                     ) -> list[int]:
    """sysbench fileio prepare: `files` files of total_bytes / files each, written in full
    and synced (name.0, name.1, ...); returns their inodes. cancel: asked before each file;
    True raises ssdlab.model.flash.runner.Cancelled."""
    size = max(4096, total_bytes // files // 4096 * 4096)
    inos = []
    for i in range(files):
        if cancel is not None and cancel():
            raise Cancelled(f"sysbench prepare was cancelled after {i} of {files} files")
        inos.append(write_file(m, f"{name}.{i}", size, sync=False))
    m.sync()
    return inos


def random_writes_steps(m: Machine, inos: int | Sequence[int], requests: int,
                        block_bytes: int = 4096, fsync_every: int = 100, seed: int = 1
                        ) -> Iterator[int]:
    """sysbench fileio rndwr: block_bytes writes at random aligned offsets in a set of files
    (sysbench draws an offset in the whole set, so each file is hit in proportion to its
    size). After every fsync_every requests every file of the set is fsynced, whether it
    was written or not: seed 004's run of 10,000 requests over 128 files reports those
    12,800 fsyncs as "Other" operations. Yields requests done."""
    fs = m.fs
    inos = [inos] if isinstance(inos, int) else list(inos)
    blocks = np.array([fs.inodes[i].size // block_bytes for i in inos], dtype=np.int64)
    ends = np.cumsum(blocks)
    picks = np.random.default_rng(seed).integers(0, int(ends[-1]), size=requests)
    which = np.searchsorted(ends, picks, side="right")
    offsets = picks - (ends[which] - blocks[which])
    copy_s = block_bytes / (m.host.copy_mb_s * 1e6)  # the same each request
    for i, (f, b) in enumerate(zip(which.tolist(), offsets.tolist(), strict=True)):
        fs.write(inos[f], b * block_bytes, block_bytes)
        m.cpu(copy_s)
        if (i + 1) % fsync_every == 0 or i + 1 == requests:
            for ino in inos:
                m.fsync(ino)
        yield i + 1


def random_writes(m: Machine, inos: int | Sequence[int], requests: int,
                  block_bytes: int = 4096, fsync_every: int = 100, seed: int = 1) -> None:
    for _ in random_writes_steps(m, inos, requests, block_bytes, fsync_every, seed):
        pass


# umount after a sync wrote the journal superblock four times and the superblock once
# (tests/recordings/ext4_rounds_*.json, step "umount": 5 writes of 4 KiB, with flushes).
UMOUNT_JOURNAL_SB_WRITES = 4


def umount(m: Machine) -> None:
    """umount: sync (whatever is dirty is written, the running transaction committed and
    checkpointed), then the journal superblock is marked empty and the superblock clean.
    What the kernel keeps in memory only goes: fstrim's "group trimmed" marks. Later steps
    find the file system mounted again (mount's own few writes are not modelled)."""
    m.sync()
    m.finish_discards()  # ext4_mb_release flushes the discard work
    fs = m.fs
    if fs.journal is not None:
        for _ in range(UMOUNT_JOURNAL_SB_WRITES):
            fs.dev.write(fs.journal.start * 4096, 4096)
            fs.dev.flush()
        fs.count.journal_blocks += UMOUNT_JOURNAL_SB_WRITES
    fs.dev.write(0, 4096)
    fs.dev.flush()
    fs.count.metadata_blocks += 1
    fs.forget_trimmed()
    m.cpu(0.0)


FAST_SYMLINK_BYTES = 60  # a shorter target is stored in the inode itself


def symlink(m: Machine, parent: int, name: str, target: str) -> int:
    """ln -s target name: a new inode and a directory entry; a target of 60 bytes or more
    also needs a data block (ext4's fast symlinks keep shorter ones in the inode)."""
    n = len(target.encode())
    if not 1 <= n <= 4095:
        raise ValueError(f"symlink target must be 1 to 4095 bytes; got {n}")
    ino = m.fs.create(parent, name, n if n >= FAST_SYMLINK_BYTES else 0)
    m.cpu(m.host.per_file_create_us * 1e-6)
    return ino
