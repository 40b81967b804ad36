import os
import sys
import tempfile
from pathlib import Path

# helpers.py sits next to the tests; make it importable whatever the rootdir.
sys.path.insert(0, str(Path(__file__).parent))
# The bench's description is cached per build (hpcprobe/describe.py): the tests' stand-in
# benches keep theirs in a directory of this run, not in the user's cache.
os.environ.setdefault("HPCPROBE_CACHE_DIR", tempfile.mkdtemp(prefix="hpcprobe-test-cache-"))
