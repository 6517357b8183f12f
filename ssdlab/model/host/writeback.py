"""When the page cache writes dirty file data back: the kernel's thresholds and timers.

Linux keeps written file data in RAM and writes it back for four reasons:

- expiry: the flusher wakes every dirty_writeback_centisecs (5 s) and writes the files whose
  data has been dirty longer than dirty_expire_centisecs (30 s);
- background: when dirty data passes dirty_background_ratio (10 %) of the memory the kernel
  counts as available (free pages plus page cache), the flusher writes the oldest dirty
  files until the dirty data is below that threshold again;
- throttling: when dirty data plus data still being written passes dirty_ratio (20 %) of
  that memory, the writing process waits for the drive;
- sync, fsync, or a file system short of space.

So the same untar writes nothing until `sync` on a machine with plenty of RAM and starts
writing halfway through on a small one. The thresholds follow from the host profile's RAM;
both ratios and both timers are sysctls with the same defaults since Linux 2.6.30.

Since Linux 4.8 the flusher's 5 s timer sits in the timer wheel, which fires a timer of
that length on its level's next step after the delay (timer_fire_s): the flusher re-arms
itself as each pass ends, just after a step, so it wakes every 5.12 s, not 5 (measured on
6.18: wakeups 5.12 s apart, tests/recordings/ext4_paced_journal_relatime.trace.gz). Over a
minute that is one flusher pass fewer.
"""

from __future__ import annotations

from dataclasses import dataclass

GIB = 2**30
HZ = 250  # CONFIG_HZ of common distribution kernels (1000 gives the same 5.12 s)


def timer_fire_s(now_s: float, delay_s: float, hz: int = HZ) -> float:
    """When a kernel timer armed at now_s for delay_s fires in the timer wheel of Linux 4.8
    and later (kernel/time/timer.c calc_index): a delay of d jiffies goes to the level whose
    range holds it (level n from 63 * 8**(n - 1) jiffies) and fires at the next multiple of
    that level's step, 8**n jiffies, after now + d (the clock's 0 taken as a step)."""
    delay = round(delay_s * hz)
    level = 0
    while level < 8 and delay >= 63 * 8 ** level:
        level += 1
    step = 8 ** level
    expires = round(now_s * hz) + delay
    return (expires // step + 1) * step / hz


@dataclass(frozen=True)
class WritebackLimits:
    """Page-cache writeback thresholds in bytes and timers in seconds.

    The defaults are the Linux defaults on a host with 4 GiB of RAM of which 90 % is free or
    page cache (background 369 MiB, throttle 737 MiB)."""

    background_bytes: int = int(0.10 * 0.9 * 4 * GIB)  # flusher writes oldest files above
    throttle_bytes: int = int(0.20 * 0.9 * 4 * GIB)  # writers wait above (dirty + writeback)
    expire_s: float = 30.0  # data dirty this long is written at the next flusher wakeup
    interval_s: float = 5.0  # the flusher's period

    def __post_init__(self) -> None:
        if not 0 < self.background_bytes <= self.throttle_bytes:
            raise ValueError(f"background_bytes must be above 0 and at most throttle_bytes "
                             f"({self.throttle_bytes}); got {self.background_bytes}")
        for name in ("expire_s", "interval_s"):
            if not 0.1 <= getattr(self, name) <= 3600:
                raise ValueError(f"{name} must be between 0.1 and 3600 seconds; got "
                                 f"{getattr(self, name)}")

    @classmethod
    def for_memory(cls, available_bytes: float, background_ratio_pct: float = 10.0,
                   ratio_pct: float = 20.0, expire_s: float = 30.0,
                   interval_s: float = 5.0) -> WritebackLimits:
        """The limits the kernel derives from available_bytes (free + page cache) and the
        vm.dirty_* settings (ratios in percent). Like the kernel, a background ratio at or
        above the throttling ratio is taken as half of it."""
        if background_ratio_pct >= ratio_pct:
            background_ratio_pct = ratio_pct / 2
        return cls(background_bytes=max(4096, int(available_bytes * background_ratio_pct / 100)),
                   throttle_bytes=max(4096, int(available_bytes * ratio_pct / 100)),
                   expire_s=expire_s, interval_s=interval_s)

    @classmethod
    def for_host(cls, host) -> WritebackLimits:
        """The limits of a HostProfile (ssdlab/model/host/profiles.py): its RAM, the share of it
        available for the page cache, and its vm.dirty_* settings."""
        return cls.for_memory(host.ram_gib * GIB * host.available_ram_fraction,
                              host.dirty_background_ratio_pct, host.dirty_ratio_pct,
                              host.dirty_expire_s, host.dirty_writeback_s)
