"""Every test session gets its own data folder, so tests never touch ./data.

Under pytest-xdist (`make test` runs two workers) each worker is a session of its own: it gets its
own folder, not the one its parent made before starting it.
"""

import os
import tempfile

if "PYTEST_XDIST_WORKER" in os.environ or "CHUNKLAB_DATA_DIR" not in os.environ:
    os.environ["CHUNKLAB_DATA_DIR"] = tempfile.mkdtemp(prefix="chunklab-test-")
