"""``python -m service.cli``: the ``zsc`` command where the project is on PYTHONPATH but not installed (the
GPU machine: harness.launchers.tool)."""

import sys

from service.cli.main import main

sys.exit(main())
