import sys

from assignment_oracle.cli import main

sys.exit(main())
