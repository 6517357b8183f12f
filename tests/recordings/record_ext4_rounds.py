"""Record real ext4 on the workloads people run (run as root; not a test).

Two kinds of recording, each on a fresh image file on a loop device, block requests traced
through tracefs as record_ext4.py does (its Tracer and request counting are reused):

- repo_<atime>: a real git repository (a one-commit bare repository made from a source
  tree, by default the newest snapshot of git's own sources) is cloned onto the file system,
  a partial build of named targets runs (make of the objects of a few directories), then
  make clean, then umount. Each command and the sync after it are separate steps.
- rounds_<discard|fstrim>: a 1 GiB file system is filled to a df use level with many files
  of log-uniform sizes in a few directories (ssdlab/model/host/fillfiles.py draws them), then three
  rounds of: delete a random half, (fstrim), refill; then umount.

Per step: the change of lifetime_write_kbytes (not readable after umount: the umount step
counts the traced write bytes instead), the requests by kind, the wall time, and the free
blocks of every block group (/proc/fs/ext4/<dev>/mb_groups: the allocator's own view, so
it is current even before the checkpoint writes the bitmaps home).

    sudo .venv/bin/python tests/recordings/record_ext4_rounds.py [--only NAME] [--repo DIR]

Everything is undone on the way out, even after an error: trace instance, mount, loop
device, image and scratch directories.
"""

from __future__ import annotations

import argparse
import contextlib
import gzip
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))
sys.path.insert(0, str(HERE))

from ext4trace import EVENTS, Tracer, count_requests, run  # noqa: E402
from record_ext4 import MKFS_BASE, Payload  # noqa: E402

from ssdlab.model.host.fillfiles import FillPlan, FillSpec  # noqa: E402

GIT_MIRROR = Path("/work/.mirror/git+git/repo")
MAKE_VARS = ["NO_CURL=1", "NO_EXPAT=1", "NO_TCLTK=1", "NO_GETTEXT=1", "NO_PERL=1",
             "NO_PYTHON=1"]
MAKE_DIRS = ("xdiff", "reftable", "builtin")  # the partial build: these directories' objects
REPO_IMAGE = 2 << 30
ROUNDS_IMAGE = 1 << 30
FILL_PERCENT = 90.0
DELETE_FRACTION = 0.5
ROUNDS = 3
FILL_SEED = 13
IDLE_S = 20.0  # rounds_discard_idle: the wait after each delete's sync
GROUP_RE = re.compile(r"^#(\d+)\s*:\s*(\d+)\s+(\d+)\s+(\d+)")


def group_free(name: str) -> list[int]:
    """Free blocks per block group, as the kernel's allocator sees them now."""
    out = []
    for line in Path(f"/proc/fs/ext4/{name}/mb_groups").read_text().splitlines():
        m = GROUP_RE.match(line.strip())
        if m:
            out.append(int(m.group(2)))
    return out


def df_use(path: Path) -> float:
    """df's Use% as a fraction (statfs: used / (used + available))."""
    st = os.statvfs(path)
    used = st.f_blocks - st.f_bfree
    return used / (used + st.f_bavail) if used + st.f_bavail else 1.0


def tree_listing(root: Path, skip_git: bool = False) -> dict[str, int]:
    """Regular files under root: path -> size in bytes (symlinks are left to
    symlink_listing)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if skip_git and ".git" in dirnames and Path(dirpath) == root:
            dirnames.remove(".git")
        for f in filenames:
            p = Path(dirpath) / f
            if not p.is_symlink():
                out[str(p.relative_to(root))] = p.lstat().st_size
    return out


def symlink_listing(root: Path) -> list[list[str]]:
    """Symbolic links under root (.git excluded): [path, target], sorted."""
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        if ".git" in dirnames and Path(dirpath) == root:
            dirnames.remove(".git")
        for f in [*filenames, *dirnames]:
            p = Path(dirpath) / f
            if p.is_symlink():
                out.append([str(p.relative_to(root)), os.readlink(p)])
    return sorted(out)


def atimes(root: Path) -> dict[str, int]:
    """atime (ns) of every file and directory under root (.git excluded)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        if ".git" in dirnames and Path(dirpath) == root:
            dirnames.remove(".git")
        for f in [*filenames, *dirnames, "."]:
            p = Path(dirpath) / f
            out[str(p.relative_to(root))] = p.lstat().st_atime_ns
    return out


def drop_caches() -> None:
    os.sync()
    Path("/proc/sys/vm/drop_caches").write_text("3\n")


@contextlib.contextmanager
def loop_fs(image_bytes: int, mount_options: str, mkfs_extra: list[str]):
    """A fresh ext4 on a loop device, mounted: yields (mount point, loop device, tracer).
    Undoes everything on the way out."""
    work = Path(tempfile.mkdtemp(prefix="ssdlab_ext4b_", dir="/tmp"))
    image, mnt = work / "ext4.img", work / "mnt"
    mnt.mkdir()
    with open(image, "wb") as f:
        f.truncate(image_bytes)
    loop, mounted, tracer = "", False, None
    state = {"mounted": False}
    try:
        loop = run("losetup", "-f", "--show", str(image)).strip()
        name = Path(loop).name
        major, minor = (int(x) for x in
                        Path(f"/sys/block/{name}/dev").read_text().strip().split(":"))
        run(*MKFS_BASE, *mkfs_extra, loop)
        run("mount", "-t", "ext4", "-o", mount_options, loop, str(mnt))
        mounted = state["mounted"] = True
        os.sync()
        time.sleep(6)  # let the mount-time transaction commit before measuring
        tracer = Tracer(major, minor)
        yield mnt, loop, tracer, state
    finally:
        if tracer is not None:
            tracer.close()
        if mounted and state["mounted"]:
            subprocess.run(["umount", str(mnt)], check=False)
        if loop:
            subprocess.run(["losetup", "-d", loop], check=False)
        image.unlink(missing_ok=True)
        shutil.rmtree(work, ignore_errors=True)


class StepLog:
    """Runs steps and records what each wrote, discarded and left free per group."""

    def __init__(self, tag: str, mnt: Path, loop: str, tracer: Tracer, state: dict):
        self.tag, self.mnt, self.tracer, self.state = tag, mnt, tracer, state
        self.name = Path(loop).name
        self.counter = Path(f"/sys/fs/ext4/{self.name}/lifetime_write_kbytes")
        self.steps: list[dict] = []
        self.trace: list[str] = []

    def step(self, name: str, action, **extra) -> None:
        self.tracer.clear()
        mounted = self.state["mounted"]
        before = int(self.counter.read_text()) if mounted else 0
        t0 = time.monotonic()
        result = action()
        wall = time.monotonic() - t0
        still = self.state["mounted"]
        after = int(self.counter.read_text()) if still else None
        lines, lost = self.tracer.take()
        req = count_requests(lines)
        entry = {"name": name, "wall_s": round(wall, 4),
                 "lifetime_write_kbytes": (after - before) if still else None,
                 "traced_write_kib": req["write_bytes"] // 1024,
                 "requests": req, "trace_lines": len(lines), "trace_lost": lost,
                 "group_free_blocks": group_free(self.name) if still else None, **extra}
        if isinstance(result, dict):
            entry.update(result)
        self.steps.append(entry)
        self.trace.append(f"# step: {name}")
        self.trace.extend(lines)
        kib = entry["lifetime_write_kbytes"]
        print(f"{self.tag:20s} {name:18s} {kib if kib is not None else '-':>9} KiB  "
              f"{req['write_bytes'] // 1024:9d} traced  {req['discard']:6d} discards  "
              f"{wall:7.2f} s", flush=True)

    def umount(self) -> None:
        subprocess.run(["umount", str(self.mnt)], check=True)
        self.state["mounted"] = False


def _save(outdir: Path, tag: str, summary: dict, trace: list[str]) -> None:
    (outdir / f"ext4_{tag}.json").write_text(json.dumps(summary, indent=1) + "\n")
    with gzip.open(outdir / f"ext4_{tag}.trace.gz", "wt", compresslevel=9) as f:
        f.write("\n".join(trace) + "\n")


def _header(tag: str, image_bytes: int, mkfs: list[str], mount: str) -> dict:
    return {"format": 1, "config": tag, "kernel": platform.release(),
            "e2fsprogs": subprocess.run(["mkfs.ext4", "-V"], capture_output=True,
                                        text=True).stderr.splitlines()[0],
            "image_bytes": image_bytes, "mkfs_options": MKFS_BASE[1:] + mkfs,
            "mount_options": mount,
            "trace": {"file": f"ext4_{tag}.trace.gz", "events": list(EVENTS),
                      "step_separator": "# step: NAME"}}


def record_repo(atime: str, source: Path, outdir: Path) -> None:
    """git clone of a real repository, a partial build, make clean, umount."""
    tag = f"repo_{atime}"
    scratch = Path(tempfile.mkdtemp(prefix="ssdlab_repo_", dir="/tmp"))
    try:
        # A one-commit bare repository of the source tree (untimed, outside the image).
        tree = scratch / "tree"
        tree.mkdir()
        subprocess.run(f"git -C {source} archive HEAD | tar x -C {tree}", shell=True,
                       check=True)
        env = {**os.environ, "GIT_AUTHOR_NAME": "lab", "GIT_AUTHOR_EMAIL": "lab@x",
               "GIT_COMMITTER_NAME": "lab", "GIT_COMMITTER_EMAIL": "lab@x",
               "GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z",
               "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"}
        run("git", "-C", str(tree), "init", "-q", "-b", "master")
        run("git", "-C", str(tree), "add", "-A")
        subprocess.run(["git", "-C", str(tree), "commit", "-q", "-m", "snapshot"], env=env,
                       check=True)
        bare = scratch / "repo.git"
        run("git", "clone", "-q", "--bare", "--no-local", str(tree), str(bare))
        source_tree = tree_listing(tree, skip_git=True)
        links = symlink_listing(tree)
        with loop_fs(REPO_IMAGE, atime, []) as (mnt, loop, tracer, state):
            log = StepLog(tag, mnt, loop, tracer, state)
            repo = mnt / "clone"
            log.step("git clone", lambda: run("git", "clone", "-q", "--no-local", str(bare),
                                              str(repo)) and None)
            log.step("sync", os.sync)
            after_clone = tree_listing(repo)
            git_files = {p: s for p, s in after_clone.items() if p.startswith(".git/")}
            targets = sorted(p[:-2] + ".o" for p in after_clone
                             if p.endswith(".c") and p.split("/")[0] in MAKE_DIRS
                             and p.count("/") == 1)
            drop_caches()
            t_before = atimes(repo)

            def make() -> dict:
                subprocess.run(["make", "-C", str(repo), "-j2", *MAKE_VARS, *targets],
                               check=True, capture_output=True)
                return {}

            log.step("make", make, targets=len(targets), dirs=list(MAKE_DIRS))
            log.step("sync", os.sync)
            after_make = tree_listing(repo)
            t_make = atimes(repo)
            drop_caches()

            def make_clean() -> dict:
                subprocess.run(["make", "-C", str(repo), *MAKE_VARS, "clean"], check=True,
                               capture_output=True)
                return {}

            log.step("make clean", make_clean)
            log.step("sync", os.sync)
            after_clean = tree_listing(repo)
            t_clean = atimes(repo)
            log.step("umount", log.umount)
        pack = sum(s for p, s in git_files.items() if p.endswith(".pack"))
        summary = _header(tag, REPO_IMAGE, [], atime)
        summary.update({
            "source": {"repository": "git (github:git/git)",
                       "commit": run("git", "-C", str(source), "rev-parse", "HEAD").strip(),
                       "files": len(source_tree), "bytes": sum(source_tree.values())},
            "pack_bytes": pack, "pack_ratio": round(pack / sum(source_tree.values()), 4),
            "worktree": sorted(source_tree.items()),
            "symlinks": links,
            "git_files": sorted(git_files.items()),
            "make_targets": targets,
            "make_written": sorted((p, s) for p, s in after_make.items()
                                   if after_clone.get(p) != s),
            "make_atime_changed": sorted(p for p, t in t_make.items()
                                         if t_before.get(p) not in (None, t)),
            "clean_removed": sorted(p for p in after_make if p not in after_clean),
            "clean_atime_changed": sorted(p for p, t in t_clean.items()
                                          if t_make.get(p) not in (None, t)),
            "notes": ["the repository is a one-commit bare repository made from the source "
                      "tree, cloned with --no-local, so the pack is what a shallow clone of "
                      "that tree transfers",
                      "caches are dropped (after a sync) before make and make clean",
                      "the umount step counts traced write bytes (the ext4 counter is gone)",
                      "symlinks: the tree's symbolic links (path, target), listed apart from "
                      "the regular files of worktree"],
            "steps": log.steps})
        _save(outdir, tag, summary, log.trace)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def record_rounds(trim: str, outdir: Path, idle_s: float = 0.0) -> None:
    """Fill a 1 GiB file system to FILL_PERCENT with many files, then ROUNDS of delete a
    random half / (fstrim) / refill; discard mount option or fstrim after each delete.
    idle_s > 0: wait that long after each delete's sync (the asynchronous discards of a
    modern kernel then finish before the refill can reuse the freed blocks)."""
    tag = f"rounds_{trim}" + ("_idle" if idle_s else "")
    mount = "relatime,discard" if trim == "discard" else "relatime"
    spec = FillSpec(seed=FILL_SEED)
    plan = FillPlan(spec)
    payload = Payload()
    fills: list[list[str]] = []
    deletes: list[list[str]] = []
    with loop_fs(ROUNDS_IMAGE, mount, []) as (mnt, loop, tracer, state):
        log = StepLog(tag, mnt, loop, tracer, state)
        for d in plan.dir_names():
            (mnt / d).mkdir()
        log.step("mkdir", os.sync)

        def fill() -> dict:
            made, total = [], 0
            while df_use(mnt) < FILL_PERCENT / 100:
                path, size = plan.next_file()
                payload.write(mnt / path, size)
                made.append(path)
                total += size
            fills.append(made)
            return {"files": len(made), "bytes": total, "df_use": round(df_use(mnt), 5)}

        def delete() -> dict:
            gone = plan.pick_deletions(DELETE_FRACTION)
            for path in gone:
                (mnt / path).unlink()
            deletes.append(gone)
            return {"files": len(gone)}

        def fstrim() -> dict:
            text = run("fstrim", "-v", str(mnt))
            m = re.search(r"\((\d+) bytes\)", text)
            return {"fstrim_reported_bytes": int(m.group(1)) if m else -1}

        if trim == "fstrim":
            log.step("fstrim", fstrim)
        log.step("fill", fill)
        log.step("sync", os.sync)
        for r in range(1, ROUNDS + 1):
            log.step(f"delete {r}", delete)
            log.step("sync", os.sync)
            if idle_s:
                log.step("idle", lambda: time.sleep(idle_s), seconds=idle_s)
            if trim == "fstrim":
                log.step("fstrim", fstrim)
            log.step(f"refill {r}", fill)
            log.step("sync", os.sync)
        log.step("umount", log.umount)
    summary = _header(tag, ROUNDS_IMAGE, [], mount)
    summary.update({
        "fill": {"seed": spec.seed, "dirs": spec.dirs, "min_bytes": spec.min_bytes,
                 "max_bytes": spec.max_bytes, "percent": FILL_PERCENT,
                 "delete_fraction": DELETE_FRACTION, "rounds": ROUNDS},
        "filled": [len(f) for f in fills], "deleted": [len(d) for d in deletes],
        "notes": ["files are drawn by ssdlab/model/host/fillfiles.FillPlan with the seed above; "
                  "a fill writes files until statfs's df use reaches the percent",
                  "the umount step counts traced write bytes (the ext4 counter is gone)"],
        "steps": log.steps})
    _save(outdir, tag, summary, log.trace)


RECORDINGS = {"repo_relatime": lambda a: record_repo("relatime", a.repo, a.outdir),
              "repo_strictatime": lambda a: record_repo("strictatime", a.repo, a.outdir),
              "rounds_discard": lambda a: record_rounds("discard", a.outdir),
              "rounds_fstrim": lambda a: record_rounds("fstrim", a.outdir),
              "rounds_discard_idle": lambda a: record_rounds("discard", a.outdir, IDLE_S)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", action="append", choices=list(RECORDINGS))
    parser.add_argument("--repo", type=Path, default=GIT_MIRROR,
                        help="git directory whose HEAD tree is cloned")
    parser.add_argument("--outdir", type=Path, default=HERE)
    args = parser.parse_args(argv)
    if os.geteuid() != 0:
        print("record_ext4_rounds.py needs root (losetup, mount, tracefs)", file=sys.stderr)
        return 2
    for name, fn in RECORDINGS.items():
        if not args.only or name in args.only:
            fn(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
