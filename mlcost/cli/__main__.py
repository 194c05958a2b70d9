"""``python -m mlcost.cli``."""

from mlcost.cli import main

main()
