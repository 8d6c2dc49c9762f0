"""``python -m axisops``: the command line."""

import sys

from .cli.main import entry

sys.exit(entry())
