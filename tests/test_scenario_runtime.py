"""What a scenario's run can meet: failures known before the run are refused at load (tar
archives, files to delete, trees for rm and make, names already taken, sizes larger than
the file system, a partition past the drive's end); the rest (a file system that fills, a
damaged archive, a file gone at run time) stop the run with a StepError naming the step
number, its do and the field. `ssdlab run` prints either as one line and exits 2, and the
window shows the same message."""

import io
import tarfile

import pytest

from ssdlab.app.cli.main import main
from ssdlab.model.host.machine import Machine
from ssdlab.model.host.profiles import load_host_profile, load_profile
from ssdlab.model.lab.scenario import ScenarioError, make_step, parse_scenario, run_scenario
from ssdlab.model.lab.steps import Context, StepError, StepRun

HEAD = """version = 1
[drive]
profile = "firstgen_block_64"
user_gib = 0.25
"""


def step(do: str, **fields) -> str:
    body = "".join(f"{k} = {v!r}\n".replace("'", '"') for k, v in fields.items())
    return f'[[steps]]\ndo = "{do}"\n{body}'


def refused(text: str) -> str:
    with pytest.raises(ScenarioError) as e:
        parse_scenario(text, "s.toml")
    return str(e.value)


def failed(text: str) -> StepError:
    s = parse_scenario(text, "s.toml")
    with pytest.raises(StepError) as e:
        run_scenario(s)
    assert "\n" not in str(e.value) and str(e.value).startswith("s.toml:")
    return e.value


def ssdlab_run(tmp_path, text, capsys) -> tuple[int, str]:
    path = tmp_path / "s.toml"
    path.write_text(text)
    code = main(["run", str(path)])
    err = capsys.readouterr().err
    return code, err


def tar_file(path, members) -> str:
    with tarfile.open(path, "w") as archive:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return str(path)


# --- refused at load --------------------------------------------------------------------

def test_a_tar_path_that_does_not_exist_is_refused_at_load():
    message = refused(HEAD + step("unpack", tar="no/such.tar"))
    assert "s.toml:7: steps[0].tar must be a tar archive; no such file 'no/such.tar'" in message


def test_a_file_that_is_not_a_tar_is_refused_at_load(tmp_path):
    path = tmp_path / "notes.tar"
    path.write_text("not an archive\n" * 100)
    message = refused(HEAD + step("unpack", tar=str(path)))
    assert f"steps[0].tar must be a tar archive; {path} is not a readable tar archive" \
        in message


def test_a_tar_is_found_beside_the_scenario_and_resolved(tmp_path):
    tar_file(tmp_path / "small.tar", [("d/a.c", b"x" * 5000)])
    scenario = tmp_path / "s.toml"
    scenario.write_text(HEAD + step("unpack", tar="small.tar"))
    from ssdlab.model.lab.scenario import load_scenario
    assert load_scenario(scenario).steps[0].args["tar"] == str(tmp_path / "small.tar")


def test_a_file_to_delete_must_have_been_written_by_an_earlier_step():
    message = refused(HEAD + step("write", name="a", mb=1) + step("delete", name="b"))
    assert ("s.toml:11: steps[1].name must name a file an earlier step wrote; got 'b' "
            "(files written and not deleted: a)") in message
    message = refused(HEAD + step("write", name="a", mb=1) + step("delete", name="a")
                      + step("delete", name="a"))
    assert "steps[2].name must name a file an earlier step wrote; got 'a'" in message
    message = refused(HEAD + step("unpack", scale=0.01) + step("delete", name="linux"))
    assert "steps[1].name must name a file an earlier step wrote; got 'linux'" in message
    # sysbench's files, each by its own name, may be deleted
    parse_scenario(HEAD + step("random_writes", mb=2, files=2, requests=1)
                   + step("delete", name="test_file.1"))


def test_a_file_written_twice_is_refused_until_deleted():
    message = refused(HEAD + step("write", name="a", mb=1) + step("write", name="a", mb=1))
    assert "steps[1].name must name a file that does not exist yet; 'a' was made by " \
        "steps[0]" in message
    parse_scenario(HEAD + step("write", name="a", mb=1) + step("delete", name="a")
                   + step("write", name="a", mb=1))
    message = refused(HEAD + step("write", name="test_file.3", mb=1)
                      + step("random_writes", mb=2, files=4, requests=1))
    assert "steps[1].name must not reuse the files of an earlier step" in message


def test_rm_and_make_need_their_tree_at_load():
    assert "steps[0].do = 'rm' needs an earlier unpack or git_clone step" in refused(
        HEAD + step("rm"))
    assert "steps[2].do = 'rm' needs an earlier unpack" in refused(
        HEAD + step("unpack", scale=0.01) + step("rm") + step("rm"))
    assert "steps[1].do = 'make_clean' needs an earlier git_clone step" in refused(
        HEAD + step("unpack", scale=0.01) + step("make_clean"))


def test_a_size_larger_than_the_file_system_is_refused_at_load():
    message = refused(HEAD + step("write", mb=400))
    assert ("s.toml:7: steps[0].mb = 400.0 writes at least 400 MB, more than the whole file "
            "system (") in message
    assert "steps[0].scale = 1.0 writes at least 493 MB" in refused(HEAD + step("unpack"))


def test_a_partition_past_the_end_of_the_drive_is_refused_at_load():
    message = refused(HEAD + "[partition]\nstart_sector = 600000\n" + step("sync"))
    assert "s.toml:6: partition.start_sector = 600000 leaves 0 blocks of 4 KiB" in message
    assert "start at most at sector 507904" in message


# --- named at run time ------------------------------------------------------------------

def test_a_full_file_system_names_the_step_and_its_size():
    e = failed(HEAD + step("write", name="a", mb=200) + step("write", name="b", mb=200))
    assert str(e).startswith("s.toml:9: steps[1].mb = 200.0 (write): file system full: ")
    assert (e.index, e.do, e.field) == (1, "write", "mb")


def test_a_size_inside_the_range_that_then_fails_names_its_field():
    e = failed(HEAD + step("random_writes", mb=250, requests=10))
    assert str(e).startswith("s.toml:5: steps[0].mb = 250.0 (random_writes): file system "
                             "full")
    e = failed(HEAD + step("unpack", scale=0.5))
    assert str(e) == "s.toml:5: steps[0].scale = 0.5 (unpack): no free inodes"


def test_a_file_missing_at_run_time_names_the_delete():
    """fill writes nothing when the file system is already that full, so the filler the
    file allows for is not there."""
    e = failed(HEAD + step("write", name="a", mb=100) + step("fill", percent=10)
               + step("delete", name="filler"))
    assert str(e) == "s.toml:12: steps[2].name = 'filler' (delete): no such file: filler"


@pytest.mark.parametrize("members, reason", [
    ([("a", b"x" * 20000), ("b", b"y" * 20000)], "unexpected end of data"),
    ([("a", b"x"), ("a", b"y")], "a exists already"),
])
def test_a_damaged_archive_names_the_tar(tmp_path, members, reason):
    path = tar_file(tmp_path / "t.tar", members)
    if reason.startswith("unexpected"):  # cut inside the second file's data
        with open(path, "r+b") as f:
            f.truncate(30000)
    e = failed(HEAD + step("unpack", tar=path))
    assert str(e) == f"s.toml:5: steps[0].tar = '{path}' (unpack): {reason}"


def test_a_step_refused_leaves_the_file_system_as_it_was():
    """The host layer refuses before it changes anything: deleting a directory or a missing
    file, creating a name that exists."""
    m = Machine(load_profile("firstgen_block_64"), load_host_profile("host_phenom2_x4_965"),
                user_pages=65536)
    context = Context()
    StepRun(m, make_step("unpack", scale=0.01), context).run()
    StepRun(m, make_step("write", name="a", mb=1), context).run()
    before = (dict(m.fs.inodes[2].entries), m.fs.alloc.free_blocks, len(m.fs.inodes))
    for bad, reason in (({"do": "delete", "name": "linux"}, "linux is a directory"),
                        ({"do": "delete", "name": "gone"}, "no such file: gone"),
                        ({"do": "write", "name": "a", "mb": 1}, "a exists already")):
        with pytest.raises(StepError) as e:
            StepRun(m, make_step(**bad), context).run()
        field = "name" if bad["do"] == "delete" else "mb"
        assert str(e.value).startswith(f"step.{field} = ")
        assert str(e.value).endswith(f"({bad['do']}): {reason}")
        assert (dict(m.fs.inodes[2].entries), m.fs.alloc.free_blocks, len(m.fs.inodes)) \
            == before


def test_a_tree_after_a_file_of_its_name_takes_the_next_name():
    s = parse_scenario(HEAD + step("write", name="linux", mb=1) + step("unpack", scale=0.01)
                       + step("rm") + step("delete", name="linux"))
    assert len(run_scenario(s)) == 4


# --- ssdlab run: one line, exit 2 -------------------------------------------------------

@pytest.mark.parametrize("text, where", [
    (HEAD + step("write", name="a", mb=200) + step("write", name="b", mb=200),
     "steps[1].mb = 200.0 (write): file system full"),
    (HEAD + step("write", name="a", mb=100) + step("fill", percent=10)
     + step("delete", name="filler"), "steps[2].name = 'filler' (delete): no such file"),
    (HEAD + step("unpack", scale=0.5), "steps[0].scale = 0.5 (unpack): no free inodes"),
    (HEAD + step("delete", name="b"), "steps[0].name must name a file an earlier step"),
    (HEAD + step("unpack", tar="no.tar"), "steps[0].tar must be a tar archive"),
    (HEAD + step("rm"), "steps[0].do = 'rm' needs an earlier unpack"),
    (HEAD + "[partition]\nstart = 63\n" + step("sync"), "partition.start is not a known"),
])
def test_ssdlab_run_prints_one_line_and_exits_2(tmp_path, capsys, text, where):
    code, err = ssdlab_run(tmp_path, text, capsys)
    assert code == 2
    assert err.count("\n") == 1 and err.startswith(f"ssdlab run: error: {tmp_path}/s.toml:")
    assert where in err and "Traceback" not in err


def test_ssdlab_run_names_a_damaged_archive_and_exits_2(tmp_path, capsys):
    path = tar_file(tmp_path / "t.tar", [("a", b"x" * 20000), ("b", b"y" * 20000)])
    with open(path, "r+b") as f:
        f.truncate(30000)
    code, err = ssdlab_run(tmp_path, HEAD + step("unpack", tar=path), capsys)
    assert code == 2
    assert err == (f"ssdlab run: error: {tmp_path}/s.toml:5: steps[0].tar = '{path}' "
                   "(unpack): unexpected end of data\n")


def test_the_window_shows_a_step_that_fails_at_run_time(until, bench, tmp_path):
    """The workbench runs steps with the same StepRun, so a failure reaches it as the same
    StepError, shown at the controls; the window keeps running."""
    bench.confirm = lambda text: True
    path = tmp_path / "full.toml"
    path.write_text(HEAD + step("write", name="a", mb=200) + step("write", name="b", mb=200))
    assert bench.open_scenario(str(path))
    until(lambda: "file system full" in bench.controls.error.text())
    assert "step.mb = 200.0 (write): file system full" in bench.controls.error.text()
    assert bench.isVisible()
