"""`python -m hpcprobe` runs the CLI, as the `hpcprobe` script does."""

import sys

from hpcprobe.cli import main

sys.exit(main())
