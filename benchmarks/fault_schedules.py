"""A thousand seeded fault schedules against ``liars-dice serve --workers 2``
(issue 36, "Test as the most trusted systems do": ``.ci/run`` runs 50,
``benchmarks/`` 1,000 and records the figure).

The harness is ``tests/server/schedules.py``: real workers (the CLI with
``--route w``), a PostgreSQL and a Redis of its own, the shipped nginx, pages
played as ``static/js/api.js`` plays them, and the invariants checked after
each schedule. Prints each violating schedule (seed, family, what broke), then
the figure: schedules run, schedules with a violation (by family and by
invariant), minutes, schedules per minute.

    .venv/bin/python benchmarks/fault_schedules.py --schedules 1000 --together 3

A PostgreSQL of its own needs root (``tests/server/pg_cluster.py``); otherwise
a new database on ``--db``'s server (default ``LIARS_DICE_TEST_POSTGRES_URL``;
the role needs CREATEDB) is used, dropped at the end, and no schedule stops it. ``--restart-every N`` starts a fresh cluster every N
schedules (default 250), so that one run's leftovers stay bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from contextlib import ExitStack
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the harness: tests/server/schedules.py, as the package ``server``
sys.path.insert(0, str(ROOT / "benchmarks"))

from _cluster import fresh_database  # noqa: E402
from server.schedules import Outcome, environment, run_schedules  # noqa: E402


def _kind(violation: str) -> str:
    """The invariant a violation's sentence is about."""
    for key, name in (("lost its seat", "seat lost with a socket open"), ("unseated", "seat lost with a socket open"),
                      ("seat/replaced", "seat lost with a socket open"), ("did not finish", "game did not finish"),
                      ("never started", "game never started"), ("shows move", "page did not converge"),
                      ("acknowledged move", "acknowledged move not stored"), ("gap", "gap in the events"),
                      ("rebuild", "events do not rebuild"), ("could not be played", "schedule could not be played")):
        if key in violation:
            return name
    return "other"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--schedules", type=int, default=1000, help="how many schedules (seeds first-seed, first-seed+1, ...)")
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--together", type=int, default=3, help="schedules played at once on the cluster")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--restart-every", type=int, default=250, help="a fresh cluster every this many schedules")
    ap.add_argument("--db", default=os.environ.get("LIARS_DICE_TEST_POSTGRES_URL"),
                    help="PostgreSQL when this machine cannot make one of the harness's own (not root)")
    ap.add_argument("--json", action="store_true", help="print the figure as one JSON object at the end")
    ap.add_argument("--reports", type=Path, default=None, help="write every violation's full report to this file")
    args = ap.parse_args()
    # Ctrl+C (SIGINT) ends the run with the figure of what ran, even when started in the
    # background (where a shell leaves SIGINT ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    if not 1 <= args.schedules <= 100_000 or not 1 <= args.together <= 16 or not 1 <= args.workers <= 3:
        sys.exit("--schedules is 1 to 100000, --together 1 to 16, --workers 1 to 3.")

    seeds = list(range(args.first_seed, args.first_seed + args.schedules))
    outcomes: list[Outcome] = []
    reports: list[str] = []
    started = time.monotonic()

    def seen(o: Outcome) -> None:
        outcomes.append(o)
        if o.violations:
            reports.append(o.report())
            print(f"seed {o.schedule.seed} ({o.schedule.family}): {o.violations[0][:220]}"
                  + (f" (+{len(o.violations) - 1} more)" if len(o.violations) > 1 else ""), flush=True)
        if len(outcomes) % 25 == 0:
            minutes = (time.monotonic() - started) / 60
            bad = sum(1 for x in outcomes if x.violations)
            print(f"-- {len(outcomes)} schedules, {bad} with a violation, {len(outcomes) / minutes:.1f} per minute",
                  flush=True)

    try:
        _run(args, seeds, seen)
    except KeyboardInterrupt:  # the figure of what ran (every process is stopped by the harness's context managers)
        print(f"\ninterrupted after {len(outcomes)} schedules")
    _figure(args, outcomes, reports, started)


def _run(args: argparse.Namespace, seeds: list[int], seen: Callable[[Outcome], None]) -> None:
    for at in range(0, len(seeds), args.restart_every):
        batch = seeds[at:at + args.restart_every]
        with tempfile.TemporaryDirectory(prefix="ld-schedules-") as tmp, ExitStack() as stack:
            db = None
            if not _own_postgres():
                if not args.db:
                    sys.exit("This machine cannot make a PostgreSQL of the harness's own (not root): give --db.")
                db = stack.enter_context(fresh_database(args.db))  # a new database, dropped at the end
            with environment(Path(tmp), workers=args.workers, shared_db=db) as env:
                run_schedules(env, batch, together=args.together, on_outcome=seen)


def _figure(args: argparse.Namespace, outcomes: list[Outcome], reports: list[str], started: float) -> None:
    if not outcomes:
        return
    minutes = (time.monotonic() - started) / 60
    bad = [o for o in outcomes if o.violations]
    families = Counter(o.schedule.family for o in outcomes)
    bad_families = Counter(o.schedule.family for o in bad)
    kinds = Counter(k for o in bad for k in {_kind(v) for v in o.violations})
    print()
    print(f"{len(outcomes)} schedules in {minutes:.1f} min ({len(outcomes) / minutes:.1f} per minute, "
          f"{args.together} at a time, {args.workers} workers)")
    print(f"schedules with a violation: {len(bad)}; not played (set-up past the grace): "
          f"{sum(1 for o in outcomes if o.not_played)}")
    for fam, n in sorted(families.items()):
        print(f"  {fam}: {bad_families.get(fam, 0)} of {n}")
    for kind, n in kinds.most_common():
        print(f"  {kind}: {n} schedules")
    print(f"violating seeds: {' '.join(str(o.schedule.seed) for o in bad) or 'none'}")
    if args.reports is not None:
        args.reports.write_text("\n\n".join(reports) + "\n")
    if args.json:
        print(json.dumps({"schedules": len(outcomes), "violating": len(bad),
                          "not_played": sum(1 for o in outcomes if o.not_played), "minutes": round(minutes, 2),
                          "per_minute": round(len(outcomes) / minutes, 2), "by_family": dict(bad_families),
                          "by_invariant": dict(kinds), "seeds": [o.schedule.seed for o in bad]}))


def _own_postgres() -> bool:
    from server import pg_cluster

    return bool(pg_cluster.available())


if __name__ == "__main__":
    main()
