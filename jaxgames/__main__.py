"""``python -m jaxgames`` runs the command line."""

import sys

from jaxgames.cli import main

sys.exit(main())
