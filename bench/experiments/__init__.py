"""One-off experiments whose results are in bench/notes/ (README.md here says which).

Run them from the repository root as modules, `python -m bench.experiments.NAME ...`: they import
the suite's modules (`common`, `embedders`, `candidate_search`, `write_path`, `cold_start`) and each
other by their plain names, as they did beside the suite in bench/, so this puts the repository,
bench/ and this folder on the path before the experiment runs.
"""

import sys
from pathlib import Path

_HERE = Path(__file__).resolve().parent
for _path in (str(_HERE.parents[1]), str(_HERE.parent), str(_HERE)):
    if _path not in sys.path:
        sys.path.insert(0, _path)
