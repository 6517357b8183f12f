"""Whose turn it is to speak: a screen reader (Orca) speaks each announcement as it comes and
cuts short whatever it was saying, and it speaks the newly focused control the same way. Four
sentences sent within 0.1 s at a run's end, and the focus moving to Next, left a listener
with "Next, push button" and nothing of drive A's result. Turns holds the sentences a moment
(GATHER_S, so that a focus change they came with is spoken first), waits while the last
sentence or focus change is still being spoken (at WORDS_PER_S), and says everything held
then as one announcement, in the order asked. An assertive sentence (a breakpoint) is said
at once: it is meant to interrupt. No Qt: ssdlab/app/gui/appearance/announce.py times it.
Times are seconds on the caller's monotonic clock."""

from __future__ import annotations

from dataclasses import dataclass, field

GATHER_S = 0.3  # sentences asked this close together are said as one, after the focus
WORDS_PER_S = 2.8  # a screen reader's default speaking rate, about 170 words a minute
LEAST_S = 0.8  # even a word or two takes this long to be heard


def speaking_s(text: str) -> float:
    """Seconds a listener needs to hear text at the default rate."""
    return max(LEAST_S, len(text.split()) / WORDS_PER_S)


def joined(texts: list[str]) -> str:
    """Sentences as one announcement: in order, a repeated one once, each but the last
    ended by a stop (the last is said as it was written)."""
    out: list[str] = []
    for text in texts:
        text = text.strip()
        if not text or out and out[-1].rstrip(".") == text.rstrip("."):
            continue
        if out and not out[-1].endswith((".", "?", "!", ":")):
            out[-1] += "."
        out.append(text)
    return " ".join(out)


@dataclass
class Turns:
    """The held sentences and until when the listener is still hearing something."""

    held: list[tuple[object, str, str]] = field(default_factory=list)  # (source, text, topic)
    first_at: float = 0.0  # when the oldest held sentence was asked
    busy_until: float = float("-inf")

    def ask(self, source: object, text: str, now: float, topic: str = "") -> None:
        """A polite sentence to say when its turn comes. topic: news of one thing (a
        drive's GCs and its run's end, "drive A: "): a newer sentence on it replaces one
        still held, so two drives' GC counts every few seconds never pile up behind a
        listener, and a run's end is not kept waiting behind its own GC count."""
        if not self.held:
            self.first_at = now
        if topic:
            self.held = [h for h in self.held if h[2] != topic]
        self.held.append((source, text, topic))

    def assertive(self, text: str, now: float) -> None:
        """An assertive sentence, said at once (the caller says it): the listener hears it
        first, the held ones after it."""
        self.busy_until = now + speaking_s(text)

    def focus(self, spoken: str, now: float) -> None:
        """The focus moved: the screen reader speaks the control (spoken: its name and
        role), cutting short what it said; held sentences wait until it is done."""
        self.busy_until = now + speaking_s(spoken)

    def when(self) -> float | None:
        """When the held sentences may be said (None: nothing held)."""
        if not self.held:
            return None
        return max(self.first_at + GATHER_S, self.busy_until)

    def due(self, now: float) -> tuple[object, str] | None:
        """(source, words) to say now: everything held, as one announcement from the
        first sentence's source; None while it is not their turn."""
        at = self.when()
        if at is None or now < at:
            return None
        source = self.held[0][0]
        words = joined([text for _source, text, _topic in self.held])
        self.held.clear()
        self.busy_until = now + speaking_s(words)
        return source, words
