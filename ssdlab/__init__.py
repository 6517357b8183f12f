"""SSD Lab: an interactive laboratory that makes SSD write amplification visible."""
