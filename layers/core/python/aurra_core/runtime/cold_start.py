"""A function's cold start imports its code with the cyclic garbage collector paused.

A handler's imports allocate some 55,000 objects the collector tracks (pydantic's schemas,
Powertools' resolvers, psycopg's adapters) and none of them is garbage, yet the collector runs
about 120 times while they load and scans them again each time, one full collection among them:
some 50 ms of a 300 ms import. So each handler turns collection off before its first import and
calls `imports_done()` after its last, which moves everything loaded so far out of the
collector's sight for good (`gc.freeze`: never garbage, never scanned again, in later requests
either) and turns it back on.

Stdlib only: it is imported by code that must not pay for anything at import.
"""

import gc


def imports_done() -> None:
    gc.freeze()
    gc.enable()
