"""The sentence beside a WA number says why it is below 1 (compression) or above the
analytic model (the blocks a small drive holds back)."""

from app.session.settings import Settings
from app.session.wanotes import usable_spare_wa, wa_note, wa_status


def test_a_compressing_drive_says_so_beside_the_number():
    s = Settings(profile="ocz_vertex_le_100")
    assert wa_status(s, 0.3) == "WA 0.300 (compressed)"
    assert "compresses" in wa_note(s, 0.3)
    plain = Settings()
    assert wa_status(plain, 1.0) == "WA 1.000"
    assert "compress" not in wa_note(plain, 1.0)
    assert wa_status(plain, float("nan")) == "WA -"


def test_a_small_drive_explains_the_gap_to_the_analytic_model():
    small = Settings(workload="random")  # 64 MiB, 276 blocks: analytic 6.40
    note = wa_note(small, 7.2)
    assert "Measured 7.20 is above the model" in note and "6.40" in note
    assert "of 276 blocks" in note
    usable, closer = usable_spare_wa(small)
    assert usable < small.geometry().spare_of_physical
    assert 7.0 < closer < 7.6  # the model at the spare GC really has: near the 7.2 measured


def test_a_large_drive_or_a_workload_without_a_model_needs_no_note():
    big = Settings(workload="random", capacity_mib=65536.0, pages_per_block=256)
    assert wa_note(big, 7.0) == ""
    assert wa_note(Settings(workload="fill"), 1.0) == ""
