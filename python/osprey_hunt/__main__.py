"""``python3 -m osprey_hunt``: see :mod:`osprey_hunt.cli`."""

from .cli import main

raise SystemExit(main())
