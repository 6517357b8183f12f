"""The counter quiz (a quiz step with ask = "wa"): write amplification from two readings of
a simulated drive's host and flash counters, checked against the engine's exact counts; the
run figures the new lessons use (lifetime WA, least-erased block, idle-time GC counted in
the idle step); and the claims lessons 11 to 14 make about their own runs."""

import pytest

from ssdlab.lessons import LessonError, LessonPlay, parse_lesson
from ssdlab.lessons.catalogue import find
from ssdlab.lessons.counterquiz import check_counter_answer, make_counter_quiz, parse_number
from ssdlab.lessons.quiz import QuizAnswerError
from ssdlab.model.flash.geometry import FtlConfig, Geometry
from ssdlab.model.flash.runner import RunSpec, run
from ssdlab.model.flash.workloads import Workload


@pytest.mark.parametrize("seed", range(6))
def test_readings_come_from_the_engine_and_the_right_answer_is_checked(seed):
    q = make_counter_quiz(seed)
    assert make_counter_quiz(seed) == q
    growth_host = q.second.host_mib - q.first.host_mib
    growth_nand = q.second.nand_mib - q.first.nand_mib
    assert growth_host > 100  # long enough that whole-MiB rounding hardly matters
    shown = growth_nand / growth_host
    assert shown == pytest.approx(q.truth.wa, rel=0.01)
    assert q.truth.wa == pytest.approx(q.truth.nand_pages / q.truth.host_pages)
    assert check_counter_answer(q, f"{shown:.2f}").correct
    assert check_counter_answer(q, f"{q.truth.wa:.3f}".replace(".", ",")).correct
    # dividing the lifetime totals is a different number, and the hint says why
    assert abs(q.lifetime_ratio - q.truth.wa) > 0.08 * q.truth.wa
    lifetime = check_counter_answer(q, f"{q.lifetime_ratio:.3f}")
    assert not lifetime.correct and "totals" in lifetime.feedback[0]
    inverse = check_counter_answer(q, f"{1 / q.truth.wa:.3f}")
    assert not inverse.correct and "host writes over flash" in inverse.feedback[0]
    other = check_counter_answer(q, f"{2 * q.truth.wa + 7:.2f}")
    assert not other.correct and "subtract" in other.feedback[0]
    panels = q.panels()
    assert [h for h, _ in panels] == ["First reading", "Second reading"]
    assert str(q.first.nand_mib) in panels[0][1] and str(q.second.host_mib) in panels[1][1]


def test_the_drive_and_traffic_vary_with_the_seed():
    quizzes = [make_counter_quiz(s) for s in range(12)]
    assert len({(q.spare, q.traffic) for q in quizzes}) >= 4
    assert len({round(q.truth.wa, 2) for q in quizzes}) >= 4


@pytest.mark.parametrize("text", ["", "two", "-1", "0", "nan", "inf", "1e9", "1/2"])
def test_an_answer_that_is_not_a_write_amplification_is_refused(text):
    with pytest.raises(QuizAnswerError, match="write amplification"):
        parse_number(text)
    with pytest.raises(ValueError, match="seed must be"):
        make_counter_quiz(-1)


QUIZ = '''format = 1
id = "q"
title = "Q"
order = 1
minutes = 5
summary = "A counter quiz."

[[steps]]
kind = "quiz"
title = "Quiz"
text = "Work it out."
ask = "wa"
seed = 4
'''


def test_the_loader_reads_a_counter_quiz_and_refuses_bad_ones():
    step = parse_lesson(QUIZ + 'answer = "2.92"\n', "q.toml").steps[0]
    assert step.ask == "wa" and step.seed == 4 and step.answer == "2.92"
    assert parse_lesson(QUIZ.replace('ask = "wa"\n', ''), "q.toml").steps[0].ask == \
        "operations"
    for extra, needle in (('answer = "lots"\n', "steps[0].answer: the answer is one number"),
                          ("operations = 3\n", "steps[0].operations: operations is for"),):
        with pytest.raises(LessonError, match=needle.replace("[", r"\[").replace("]", r"\]")):
            parse_lesson(QUIZ + extra, "q.toml")
    with pytest.raises(LessonError, match=r"q.toml:12: steps\[0\].ask: must be one of "
                                          "operations, wa; got 'watts'"):
        parse_lesson(QUIZ.replace('"wa"', '"watts"'), "q.toml")


def test_a_player_checks_a_counter_quiz_against_the_engine():
    lesson = parse_lesson(QUIZ + 'answer = "2.92"\n', "q.toml")
    play = LessonPlay(lesson)
    step = lesson.steps[0]
    assert play.quiz(step) == make_counter_quiz(4)
    assert play.check_quiz(step, "2.92").correct
    assert not play.check_quiz(step, "1.5").correct


def _spec(**kw):
    ftl = FtlConfig(gc="greedy", honour_trim=kw.pop("honour_trim", True), seed=3)
    return RunSpec(Geometry(4096, 32, spare=0.1), ftl, kw.pop("workload", Workload()),
                   warmup_drive_writes=kw.pop("warm", 1.0), measure_drive_writes=1.0, seed=3)


def test_lifetime_wa_counts_the_fill_and_erase_counts_have_a_least_worn_block():
    young, old = run(_spec(warm=1.0)), run(_spec(warm=10.0))
    # the fill (written once) weighs a third of the young drive's host writes
    assert young.lifetime_wa < 0.9 * young.wa
    assert abs(old.lifetime_wa - old.wa) < abs(young.lifetime_wa - young.wa)
    assert 0 <= young.erase_count_min <= young.erase_count_mean <= young.erase_count_max


def test_no_published_model_for_trimmed_pages_firmware_ignores():
    trimmed = Workload("random", active_fraction=0.7)
    ignores, honours = run(_spec(workload=trimmed, honour_trim=False)), \
        run(_spec(workload=trimmed))
    assert ignores.theory_wa is None and ignores.theory_wa_usable is None
    assert ignores.effective_spare == pytest.approx(ignores.spare)
    assert honours.theory_wa is not None and honours.effective_spare > honours.spare
    assert ignores.wa > 2 * honours.wa


def _figures(lesson_id: str) -> dict:
    lesson = find(lesson_id)
    play = LessonPlay(lesson)
    for step in lesson.steps:
        if step.kind == "predict":
            play.predict(step, step.answer)
        elif step.kind == "run":
            play.run(step)
    return play.figures()


def test_what_lessons_11_to_13_say_about_their_own_runs():
    life = _figures("measuring-wa")["life"]
    young, old = life["young"], life["old"]
    assert young["lifetime_wa"] < 0.9 * young["wa"]  # "well below"
    assert 0.9 * old["wa"] < old["lifetime_wa"] < old["wa"]  # "come close"
    endurance = _figures("endurance")
    wear = endurance["wear"]
    even, skewed = wear["even"], wear["skewed"]
    # "about as often" on average; the skewed drive's extremes far apart
    assert skewed["erase_count_mean"] == pytest.approx(even["erase_count_mean"], rel=0.1)
    assert even["erase_count_max"] < 1.3 * even["erase_count_mean"]
    assert skewed["erase_count_min"] < 0.2 * skewed["erase_count_mean"]
    assert 2.5 < skewed["erase_count_max"] / skewed["erase_count_mean"] < 3.5  # "about three"
    # "under half the host writes": the most-worn blocks compared
    assert skewed["erase_count_max"] > 2 * even["erase_count_max"]
    assert skewed["wa"] < 1.25 * even["wa"]  # "only a little higher"
    # wear levelling (the second run): its most-worn block "about 1.4 times the average",
    # "the least-worn not far below it", "about nine tenths as long" as the even drive, and
    # its WA "about the same as the skewed drive's, a little lower even"
    levelling = endurance["levelling"]
    levelled = levelling["levelled"]
    assert 1.25 < levelled["erase_count_max"] / levelled["erase_count_mean"] < 1.55
    assert levelled["erase_count_min"] > 0.75 * levelled["erase_count_mean"]
    assert 0.85 < even["erase_count_max"] / levelled["erase_count_max"] < 0.97
    assert levelling["skewed"]["wa"] == skewed["wa"]  # drive B again, the same run
    assert 0.9 < levelled["wa"] / skewed["wa"] < 1.0
    firmware = _figures("trim-both-sides")["firmware"]
    assert firmware["ignores"]["wa"] > 3 * firmware["honours"]["wa"]


def test_idle_time_garbage_collection_counts_in_the_idle_step():
    """Lesson 14: the pause's copies show in the idle step; after it the burst copies
    nothing ("every page it wrote was programmed once"); without it the burst copies, fewer
    than the pause did ("more of them")."""
    idle = _figures("idle-time")["idle"]
    pause, busy = idle["pause"], idle["busy"]

    def burst(config: dict, field: str) -> float:
        return config[f"steps[6].{field}"] + config[f"steps[7].{field}"]

    assert pause["steps[5].gc_copies"] > 0 and pause["steps[5].nand_written_mb"] > 0
    assert pause["steps[5].device_written_mb"] == 0  # the host wrote nothing meanwhile
    assert burst(pause, "gc_copies") == 0
    assert burst(pause, "nand_written_mb") == pytest.approx(burst(pause, "device_written_mb"),
                                                            rel=0.01)
    assert busy["steps[5].gc_copies"] == 0 and burst(busy, "gc_copies") > 0
    # "more of them than the burst made without a pause": cleaning ahead copied more
    assert pause["steps[5].gc_copies"] > burst(busy, "gc_copies")
