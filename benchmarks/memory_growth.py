"""Where a worker's memory grows: the Python allocations 1,000 mixed validate requests leave behind.

``worker_memory.py`` measures a gunicorn worker's private memory (what it does not share with the
master). This script runs the same requests (``worker_memory.bodies``) through the app in one
process, after the master's warm-up (``warmup.warm_up``) and ``gc.freeze()`` as the master does
before it forks, and reports with ``tracemalloc`` what the requests allocated and kept, by the
deckcheck line that allocated it. The difference between the two figures is memory that is not a
new allocation: pages of the master's heap a worker copies when it writes to an object on them (a
reference count, an entry made in place), which ``tracemalloc`` does not see.

    python benchmarks/memory_growth.py [--requests 1000] [--top 10]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DECKCHECK_RATELIMIT_ENABLED", "false")  # one client: the per-address limit would answer 429s

from benchmarks.worker_memory import bodies  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=1000)
    parser.add_argument("--top", type=int, default=10, help="how many allocating lines to show")
    args = parser.parse_args(argv)

    import deckcheck
    from deckcheck.service.warmup import warm_up

    requests = bodies(args.requests)
    app = deckcheck.create_app()
    warm_up(app)
    gc.collect()
    gc.freeze()
    client = app.test_client()
    tracemalloc.start(8)
    before = tracemalloc.take_snapshot()
    statuses = [client.post("/api/v1/validate", data=b, content_type="application/json").status_code for b in requests]
    gc.collect()
    after = tracemalloc.take_snapshot()
    here = str(ROOT / "deckcheck")
    grown = [s for s in after.compare_to(before, "traceback") if s.size_diff > 0]
    total = sum(s.size_diff for s in grown)
    print(
        f"{args.requests} mixed validate requests in one process (200s: {statuses.count(200)}): "
        f"Python allocations kept {total / 2**20:.2f} MiB"
    )
    print(f"the {args.top} largest, by the deckcheck line that made them (KiB, blocks):")
    for stat in grown[: args.top]:
        ours = [frame for frame in stat.traceback if frame.filename.startswith(here)]
        frame = ours[-1] if ours else stat.traceback[-1]  # the innermost (frames run oldest first)
        where = os.path.relpath(frame.filename, ROOT)
        print(f"  {stat.size_diff / 1024:8.0f} {stat.count_diff:7d}  {where}:{frame.lineno}")
    print("command: python benchmarks/memory_growth.py " + " ".join(argv if argv is not None else sys.argv[1:]))
    return 0 if statuses.count(200) == len(statuses) else 1


if __name__ == "__main__":
    raise SystemExit(main())
