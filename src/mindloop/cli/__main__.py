"""``python -m mindloop.cli`` runs the command line."""

import sys

from mindloop.cli import main

sys.exit(main())
