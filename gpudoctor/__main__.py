import sys

from gpudoctor.cli import main

sys.exit(main())
