"""__main__.py -- `python3 -m tessera_bot` is the `tessera-bot` command."""

import sys

from .command import main

sys.exit(main())
