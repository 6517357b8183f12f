"""The recorder in this directory needs root and real devices; pytest must never import it."""

collect_ignore = ["record_ext4.py", "record_ext4_rounds.py"]
