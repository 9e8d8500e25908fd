"""Every test session gets its own data folder, so tests never touch ./data."""

import os
import tempfile

os.environ.setdefault("CHUNKLAB_DATA_DIR", tempfile.mkdtemp(prefix="chunklab-test-"))
