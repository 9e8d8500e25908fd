import gc
import sys

from core.cli import main

# The imported modules live as long as the process: out of the collector's sight, a full
# collection walks what the command makes (thousands of blocks and chunks), not also the ~100k
# objects of the imports (speed: a large text converts faster).
gc.freeze()
sys.exit(main())
