"""What each control of the panel says (ssdlab/app/gui/settings/controls.py): its tooltip, the
glossary term it is about (the tooltip ends with the term's definition), and how the
mappings read on screen. Words only, no widgets.
"""

from __future__ import annotations

from ssdlab.lessons.glossary import load_glossary

TIPS = {
    "profile": "A real drive's geometry and timing. With a profile the throughput chart shows "
               "MB/s over simulated time; without one, how the flash's page programs are "
               "shared between host data and GC copies.",
    "capacity_mib": "User capacity the host sees, in MiB. Small drives animate page by page; "
                    "big ones run flat out.",
    "spare_pct": "Flash the host never sees, as % of physical capacity. More spare means "
                 "GC finds emptier victims and WA falls.",
    "page_kib": "Size of one flash page, the unit the drive programs.",
    "pages_per_block": "Pages in one erase block, the unit the drive erases. GC must copy a "
                       "block's valid pages before erasing it.",
    "mapping": "Page-mapped (modern) puts any logical page anywhere; block-mapped (first "
               "generation) rewrites a whole erase block for a small write; fast (hybrid) "
               "logs small writes in spare blocks and merges them later.",
    "gc": "How GC picks a victim block: greedy (fewest valid pages), FIFO (oldest), "
          "cost-benefit (age vs. emptiness) or random-d (best of d at random).",
    "d": "random-d: blocks sampled per choice; the emptiest of them is collected.",
    "gc_low_blocks": "Foreground GC runs while free blocks are at or below this many.",
    "gc_frontier": "Where GC writes the pages it copies: separate (an open block of their own, "
                   "so copied, colder data stays apart from fresh writes) or shared (the "
                   "host's open block: one write frontier).",
    "victim_order": "Greedy GC, among blocks with the same fewest valid pages: newest (the "
                    "one that got there last) or oldest (the one that got there first, as "
                    "Desnoyers' simulator does).",
    "slc_cache": "A write cache of flash used one bit per cell (SLC), fast, in front of the "
                 "dense flash: static (blocks kept for it) or dynamic (those plus free blocks "
                 "borrowed, fewer on a fuller drive). Only profiles with a cache's figures "
                 "have one.",
    "wear_leveling_gap": "Static wear levelling: when the most-worn block has this many more "
                         "erases than the least-worn full block, the drive moves that "
                         "block's cold data so it wears too; the moves are GC copies. 0 is "
                         "off. Page mapping and greedy GC only.",
    "placement": "Whether the computer tags its writes so the drive keeps hot data apart: "
                 "none, or hot/cold tags (the hot/cold workload's hot pages, and a "
                 "scenario's user-mix hot rewrites, go with a placement handle of their "
                 "own; the drive keeps an open block for each). Page mapping and a "
                 "separate GC frontier only.",
    "handle_gc": "Where garbage collection copies tagged pages: mixed (every handle's "
                 "copies in one block) or isolated (each handle's copies in blocks of its "
                 "own).",
    "tag_errors_pct": "The share of the pages the computer tags the wrong way round: 0 is "
                      "a host that knows its data, 50 is a coin toss.",
    "seed": "Seeds the workload generators and the engine; same seed, same run.",
    "partition_start": "Where the partition starts, in 512-byte sectors. 63 was the old DOS "
                       "default; 2048 (1 MiB) is aligned.",
    "partition_custom": "A partition start in sectors not in the list.",
    "lvm_kib": "LVM's data offset (pe_start) inside the partition: 192 KiB was LVM2's old "
               "default, 256 KiB lines up with 128 KiB erase blocks.",
    "workload": "What the host does next: block workloads (fill in order then random "
                "rewrites, the first run's demonstration; fill in order, random or "
                "sequential rewrites, hot/cold writes, random TRIMs) on the bare drive, or "
                "file-system steps (kernel tree unpack, rm -rf, a big file, a trace replay).",
    "fill_pct": "Fill to %: the share of logical pages written in order from the start.",
    "amount": "How much to write, in multiples of the user capacity (after the fill, for "
              "fill then random writes). 0 runs until paused.",
    "hot_lba_pct": "Share of logical pages that are hot.",
    "hot_write_pct": "Share of writes that go to the hot pages.",
    "trim_max_pages": "Each TRIM unmaps a random range of 1 to this many pages.",
    "journal": "ext4's JBD2 journal: metadata is written twice (journal, then home). A "
               "format option: changing it makes a new file system.",
    "atime": "When reading a file updates its access time: strict (every read), relatime "
             "(once a day or after a change) or noatime (never). Applies at once (remount).",
    "discard": "Mount option: TRIM the extents a transaction freed when it commits. Applies "
               "at once (remount).",
    # what sync waits for is left to lesson 4, which asks it: this tip shows beside that
    # question
    "kernel": "How discard behaves. 2.6.39 (the 2011 articles): one TRIM per freed extent, "
              "sent inside the commit. modern (Linux 5.x-6.x): a worker discards after the "
              "commit each freed extent's whole free run, never-written space included. "
              "Changing it makes a new file system.",
    "fstrim_every_min": "Run fstrim every this many simulated minutes while file-system "
                        "steps run (0 = never), like a periodic fstrim timer.",
    "kernel_scale": "Kernel tree unpack: share of the Linux 2.6.39 tree (36,706 files, "
                    "493 MB); 0.1 is 3,671 files and 49 MB.",
    "seq_mb": "Sequential write: one file of this many MB written in 1 MiB writes (dd), "
              "then sync.",
    "trace_path": "A block trace to replay through partition and FTL: tracefs "
                  "block_rq_issue, blkparse, fio iolog or MSR-Cambridge CSV.",
}
FS_TIP = ("File-system workloads run on an ext4-like file system (partition start and LVM "
          "offset from the expert section apply) and need a device profile. Each step ends "
          "with sync; the Steps tab lists what each cost.")
# How the mappings read on screen ("fast" is the hybrid log-block scheme's name in papers).
MAPPING_NAMES = {"page": "page", "block": "block", "fast": "hybrid (FAST)"}
# The glossary term each control is about: its tooltip ends with the term's definition.
TERMS = {"spare_pct": "over-provisioning", "page_kib": "page", "pages_per_block": "erase block",
         "mapping": "page mapping", "gc": "garbage collection", "d": "random-d",
         "gc_low_blocks": "garbage collection", "partition_start": "alignment",
         "lvm_kib": "LVM", "journal": "journal", "atime": "atime", "discard": "discard",
         "fstrim_every_min": "fstrim", "hot_lba_pct": "hot and cold data",
         "hot_write_pct": "hot and cold data", "amount": "drive write",
         "trim_max_pages": "TRIM", "wear_leveling_gap": "wear levelling",
         "placement": "placement handle", "handle_gc": "placement handle",
         "tag_errors_pct": "placement handle"}
# How the placement choices read on screen.
PLACEMENT_NAMES = {"none": "none", "hotcold": "hot/cold tags"}


def glossary_tip(name: str) -> str:
    """The control's own tip, then the glossary's definition of its term (Ctrl+G opens the
    Glossary window)."""
    term = load_glossary().find(TERMS.get(name, ""))
    if term is None:
        return TIPS[name]
    return f"{TIPS[name]}\n\nGlossary, {term.term}: {term.definition} (Ctrl+G)"
