"""A drive too big for the memory this process may use is refused with one clear message:
ulimit -v and -d, and memory cgroups (v1 and v2, with their ancestors) count, not only
MemAvailable; and an allocation that fails anyway gives the same message, not numpy's."""

import resource
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ssdlab.model.flash.geometry import FtlConfig, Geometry, check_buildable
from ssdlab.model.flash.memory import UNLIMITED, memory_budget

REPO = Path(__file__).resolve().parents[1]
MiB = 2**20


def fake_proc(tmp_path: Path, cgroup: str, mountinfo: str, mem_available_kib=8 * 2**20):
    proc = tmp_path / "proc"
    (proc / "self").mkdir(parents=True)
    (proc / "meminfo").write_text(f"MemTotal: 99999999 kB\nMemAvailable: "
                                  f"{mem_available_kib} kB\n")
    (proc / "self" / "status").write_text("VmSize:\t 1000 kB\nVmData:\t 500 kB\n")
    (proc / "self" / "cgroup").write_text(cgroup)
    (proc / "self" / "mountinfo").write_text(mountinfo)
    return proc


def write(folder: Path, **files: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (folder / name.replace("__", ".")).write_text(text)


def test_cgroup_v2_limit_less_usage_counts(tmp_path):
    root = tmp_path / "cg2"
    write(root, memory__max="max\n")
    write(root / "user.slice", memory__max=f"{600 * MiB}\n", memory__current=f"{100 * MiB}\n")
    write(root / "user.slice" / "app", memory__max="max\n", memory__current=f"{90 * MiB}\n",
          memory__stat=f"anon 1\ninactive_file {40 * MiB}\n")
    proc = fake_proc(tmp_path, "0::/user.slice/app\n",
                     f"30 20 0:26 / {root} rw,nosuid - cgroup2 cgroup2 rw\n")
    budget = memory_budget(proc)
    assert budget.available_bytes == 500 * MiB  # the parent's limit binds the child
    assert "memory.max" in budget.limit and "user.slice" in budget.limit


def test_cgroup_v1_limit_and_its_page_cache(tmp_path):
    point = tmp_path / "sys fs" / "memory"
    write(point / "docker" / "abc", memory__limit_in_bytes=f"{256 * MiB}\n",
          memory__usage_in_bytes=f"{200 * MiB}\n",
          memory__stat=f"cache 5\ntotal_inactive_file {100 * MiB}\n")
    write(point / "docker", memory__limit_in_bytes=f"{2**63 - 4096}\n")
    escaped = str(point).replace(" ", "\\040")
    proc = fake_proc(tmp_path, "12:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n0::/\n",
                     f"35 31 0:32 / {escaped} rw,relatime - cgroup cgroup rw,memory\n"
                     f"36 31 0:33 / {tmp_path} rw - cgroup cgroup rw,cpu,cpuacct\n")
    assert memory_budget(proc).available_bytes == (256 - 100) * MiB


def test_a_cgroup_namespace_mount_root_is_honoured(tmp_path):
    point = tmp_path / "memory"
    write(point, memory__limit_in_bytes=f"{64 * MiB}\n", memory__usage_in_bytes="0\n")
    proc = fake_proc(tmp_path, "5:memory:/docker/abc\n",
                     f"35 31 0:32 /docker/abc {point} rw - cgroup cgroup rw,memory\n")
    assert memory_budget(proc).available_bytes == 64 * MiB


def test_no_cgroup_and_no_limits_falls_back_to_mem_available(tmp_path):
    proc = fake_proc(tmp_path, "", "", mem_available_kib=1024)
    if resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY:
        pytest.skip("this test runs under an address-space limit")
    assert memory_budget(proc).available_bytes == MiB
    assert memory_budget(tmp_path / "nothing").available_bytes <= UNLIMITED


def run_python(code: str, limit_bytes: int | None = None) -> subprocess.CompletedProcess:
    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, resource.RLIM_INFINITY))

    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=REPO,
                          capture_output=True, text=True, timeout=600,
                          preexec_fn=limit if limit_bytes else None)


def baseline_address_space() -> int:
    """Address space a process has mapped once the command line and the engine are loaded."""
    done = run_python("""
        import ssdlab.app.cli.main, ssdlab.model.flash.runner, ssdlab.model.flash.state
        from ssdlab.model.flash.memory import _kib_field
        print(_kib_field(open("/proc/self/status").read(), "VmSize"))
    """)
    return int(done.stdout)


def test_simulate_under_ulimit_v_is_refused_with_the_limit_named():
    limit = baseline_address_space() + 512 * MiB
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "simulate", "--user-pages",
                           str(2**27)], cwd=REPO, capture_output=True, text=True, timeout=600,
                          preexec_fn=lambda: resource.setrlimit(
                              resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY)))
    assert done.returncode == 2, done.stderr
    line, = done.stderr.strip().splitlines()
    assert "--user-pages=134217728 needs about" in line and "ulimit -v" in line


def test_an_allocation_that_fails_after_the_check_gives_the_same_message():
    # The check is told there is plenty (as when a limit cannot be read); the allocation
    # then meets the real ulimit -v.
    done = run_python("""
        import ssdlab.model.flash.state as state
        from ssdlab.model.flash.geometry import FtlConfig, Geometry
        state.check_buildable = lambda geometry, config: None
        try:
            state.allocate(Geometry(user_pages=2**28), FtlConfig())
        except ValueError as e:
            print(e)
    """, limit_bytes=baseline_address_space() + 256 * MiB)
    assert done.returncode == 0, done.stderr
    assert "user_pages=268435456 needs about" in done.stdout
    assert "MiB is available" in done.stdout


def test_the_check_names_the_limit_given():
    with pytest.raises(ValueError, match=r"needs about \d+ MiB .* 1 MiB is available"):
        check_buildable(Geometry(user_pages=2**20), FtlConfig(), memory_limit_bytes=MiB)


def test_bench_tib_under_ulimit_v_is_refused_before_any_work():
    """The 1 TiB case needs about 2.1 GiB of engine state: refused at once, status 2, one
    line, when the process may not have it."""
    limit = baseline_address_space() + 512 * MiB
    done = subprocess.run([sys.executable, "-m", "ssdlab.app.cli.main", "bench", "--tib"], cwd=REPO,
                          capture_output=True, text=True, timeout=600,
                          preexec_fn=lambda: resource.setrlimit(
                              resource.RLIMIT_AS, (limit, resource.RLIM_INFINITY)))
    assert done.returncode == 2, done.stderr
    line, = done.stderr.strip().splitlines()
    assert "user_pages=268435456 needs about" in line and "ulimit -v" in line
    assert done.stdout == ""
