"""The `ssdlab` command line. Headless: only opening the window imports Qt."""
