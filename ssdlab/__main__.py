"""`python -m ssdlab`: the same as the `ssdlab` command."""

import sys

from ssdlab.app.cli.main import main

sys.exit(main())
