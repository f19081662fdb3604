import sys

from sitegen.commands.cli import main

sys.exit(main())
