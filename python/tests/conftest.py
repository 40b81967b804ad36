import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

# helpers.py sits next to the tests; make it importable whatever the rootdir.
sys.path.insert(0, str(Path(__file__).parent))
# The bench's description is cached per build (hpcprobe/describe.py): the tests' stand-in
# benches keep theirs in a directory of this run, not in the user's cache.
if not os.environ.get("HPCPROBE_CACHE_DIR"):
    os.environ["HPCPROBE_CACHE_DIR"] = tempfile.mkdtemp(prefix="hpcprobe-test-cache-")
    atexit.register(shutil.rmtree, os.environ["HPCPROBE_CACHE_DIR"], True)
# Every launch writes its figures into the history (hpcprobe/history): the tests' go to
# a file of this run, never the user's, whatever the environment names (a test that
# reads it sets its own).
_history_dir = tempfile.mkdtemp(prefix="hpcprobe-test-history-")
os.environ["HPCPROBE_HISTORY"] = os.path.join(_history_dir, "history.sqlite")
atexit.register(shutil.rmtree, _history_dir, True)
