"""Device and host profiles: every shipped file loads, bad files are refused clearly."""

from pathlib import Path

import pytest

from ssdlab.model.host.profiles import (
    PROFILES_DIR,
    DeviceProfile,
    HostProfile,
    ProfileError,
    field_names,
    host_profile_from_file,
    list_host_profiles,
    list_profiles,
    load_host_profile,
    load_profile,
    profile_from_file,
)

EXPECTED = {"ocz_vertex_le_100", "crucial_m4_128", "intel_320_120", "intel_x25m_g1_80",
            "corsair_x64_fw10", "corsair_x64_fw20", "ocz_vertex_60", "ocz_agility3_120",
            "firstgen_block_64", "nvme_modern_1tb"}


def test_every_shipped_profile_loads_and_documents_itself():
    names = list_profiles()
    assert EXPECTED <= set(names)
    for name in names:
        p = load_profile(name)
        assert isinstance(p, DeviceProfile)
        assert p.calibration, name
        assert p.predictions, name  # at least one documented figure it was not fitted to
        p.geometry(user_pages=p.pages_per_block * 256)  # buildable at a small size
        p.ftl_config()


def test_host_profile_loads():
    assert list_host_profiles() == ["host_phenom2_x4_965", "host_recorder_vm"]
    h = load_host_profile("phenom2_x4_965")
    assert isinstance(h, HostProfile)
    # calibrated from the 000/001 runs without discard
    unpack = 36_706 * h.per_file_create_us * 1e-6 + 2_300 * h.per_dir_us * 1e-6 \
        + 493e6 / (h.copy_mb_s * 1e6)
    assert unpack == pytest.approx(1.21, rel=0.02)
    assert 39_006 * h.per_file_delete_us * 1e-6 == pytest.approx(0.47, rel=0.02)


def test_documented_layouts():
    assert load_profile("corsair_x64_fw20").erase_block_bytes == 512 * 1024
    assert load_profile("firstgen_block_64").erase_block_bytes == 128 * 1024
    assert load_profile("firstgen_block_64").mapping == "block"
    assert not load_profile("corsair_x64_fw10").trim_honoured
    assert load_profile("corsair_x64_fw20").trim_honoured
    assert not load_profile("intel_x25m_g1_80").trim_honoured
    assert load_profile("nvme_modern_1tb").trim_queued
    le = load_profile("ocz_vertex_le_100")
    assert le.compression_ratio < 1 and not le.trim_queued
    # 128 GiB raw behind 100 GB
    assert le.spare == pytest.approx(1 - 100e9 / (128 * 2**30), abs=1e-3)


def _good_text() -> str:
    return (PROFILES_DIR / "ocz_vertex_le_100.toml").read_text()


def _write(tmp_path: Path, text: str, name: str = "bad.toml") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_copy_of_good_profile_loads(tmp_path):
    p = profile_from_file(_write(tmp_path, _good_text(), "copy.toml"))
    assert p.key == "copy"


def test_unknown_field_named(tmp_path):
    path = _write(tmp_path, "turbo_mode = true\n" + _good_text())
    with pytest.raises(ProfileError, match=r"bad\.toml.*unknown field 'turbo_mode'"):
        profile_from_file(path)


@pytest.mark.parametrize("field,value,words", [
    ("spare", "0.95", "from 0.0 to 0.9"),
    ("read_us", "0.0", "from 1.0 to"),
    ("channels", "0", "whole number from 1 to 64"),
    ("channels", "2.5", "whole number from 1 to 64"),
    ("mapping", '"hybrid"', "one of 'page', 'block'"),
    ("trim_queued", "1", "true or false"),
    ("compression_ratio", "1.5", "from 0.05 to 1.0"),
])
def test_out_of_range_names_file_field_and_range(tmp_path, field, value, words):
    lines = [f"{field} = {value}" if line.startswith(f"{field} =") else line
             for line in _good_text().splitlines()]
    path = _write(tmp_path, "\n".join(lines) + "\n")
    with pytest.raises(ProfileError) as e:
        profile_from_file(path)
    msg = str(e.value)
    assert "bad.toml" in msg and f"'{field}'" in msg and words in msg


def test_missing_field_named(tmp_path):
    text = "\n".join(x for x in _good_text().splitlines() if not x.startswith("erase_us"))
    with pytest.raises(ProfileError, match=r"bad\.toml: field 'erase_us' is missing"):
        profile_from_file(_write(tmp_path, text))


@pytest.mark.parametrize("version_line", ["version = 2", 'version = "1"', ""])
def test_wrong_or_missing_version(tmp_path, version_line):
    text = _good_text().replace("version = 1", version_line, 1)
    with pytest.raises(ProfileError, match=r"bad\.toml: field 'version'"):
        profile_from_file(_write(tmp_path, text))


def test_syntax_error_names_file_and_line(tmp_path):
    text = _good_text().replace("channels = 8", "channels = = 8")
    with pytest.raises(ProfileError, match=r"bad\.toml: not valid TOML: .*line \d+"):
        profile_from_file(_write(tmp_path, text))


def test_calibration_must_name_a_parameter(tmp_path):
    text = _good_text() + '\n[calibration.warp_factor]\nfigure = "x"\narithmetic = "y"\n'
    with pytest.raises(ProfileError, match=r"bad\.toml: field 'calibration\.warp_factor'"):
        profile_from_file(_write(tmp_path, text))


def test_predictions_required(tmp_path):
    text = _good_text().split("[[predictions]]")[0]
    with pytest.raises(ProfileError, match=r"bad\.toml: field 'predictions'"):
        profile_from_file(_write(tmp_path, text))


def test_impossible_geometry_refused(tmp_path):
    text = _good_text().replace("spare = 0.2724", "spare = 0.0")
    with pytest.raises(ProfileError, match=r"bad\.toml: impossible geometry"):
        profile_from_file(_write(tmp_path, text))


def test_unknown_name_lists_known():
    with pytest.raises(ProfileError, match="known: .*ocz_vertex_le_100"):
        load_profile("no_such_drive")
    with pytest.raises(ProfileError):
        load_profile("../etc/passwd")
    with pytest.raises(ProfileError, match="host profile"):
        load_profile("host_phenom2_x4_965")


def test_host_profile_rejects_device_fields(tmp_path):
    text = (PROFILES_DIR / "host_phenom2_x4_965.toml").read_text() + "\n"
    text = text.replace("copy_mb_s = 1500.0", "copy_mb_s = 1500.0\nchannels = 8")
    with pytest.raises(ProfileError, match=r"host_x\.toml.*unknown field 'channels'"):
        host_profile_from_file(_write(tmp_path, text, "host_x.toml"))


def test_field_names_cover_the_brief():
    names = set(field_names())
    for f in ("capacity_gb", "page_bytes", "pages_per_block", "spare", "mapping", "gc_policy",
              "channels", "dies_per_channel", "read_us", "program_us", "erase_us",
              "host_link_mb_s", "command_overhead_us", "trim_honoured", "trim_queued",
              "trim_command_us", "trim_s_per_gib", "background_gc", "idle_gc_threshold_s",
              "compression_ratio"):
        assert f in names
