"""`python -m pbm`, the same as the `pbm` command."""
import sys

from pbm.cli import main

sys.exit(main())
