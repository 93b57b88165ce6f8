"""The arena on Ray against the arena on processes (`--jobs`), on this machine.

Plays the same seeded arena (default: `classic`, four `random` bots, 2,000
games) four ways and prints games per second, median of `--repeats` runs each:

    jobs 1        run_arena(config, 1): in this process, no pool
    jobs N        run_arena(config, N): N spawned worker processes (start-up included)
    ray N         run_arena(config, backend="ray") on a local Ray with N CPUs that is
                  already running, its workers started (a second run)
    ray N cold    start a local Ray, play (the first run), stop it: what one
                  `liars-dice arena --backend ray` costs

and for each parallel way its overhead per game: the wall time beyond a
perfect split of the in-process run over the N CPUs, (t - t_jobs1 / N) / games
(on a machine shared with other jobs this includes the CPUs it did not get).
Every run's report is checked to be identical to `--jobs 1`.

Run: .venv/bin/python benchmarks/arena_ray.py [--games 2000] [--cpus 2] [--repeats 3] [--bots random,random,random,random]
Needs the `ray` and `arena` extras.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

from liars_dice.arena import ArenaConfig, parse_entrants, run_arena
from liars_dice.engine import Rules


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--cpus", type=int, default=2, help="--jobs and the local Ray's CPUs")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--rules", default="classic")
    parser.add_argument("--bots", default="random,random,random,random")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    config = ArenaConfig(Rules.preset(args.rules), tuple(parse_entrants(args.bots)), args.games, seed=1)
    reference = run_arena(config, 1).report()

    def timed(fn) -> float:  # type: ignore[no-untyped-def]
        t = time.perf_counter()
        result = fn()
        elapsed = time.perf_counter() - t
        assert result.report() == reference, "a backend changed the report"
        return elapsed

    jobs, warm, cold = f"jobs {args.cpus}", f"ray {args.cpus}", f"ray {args.cpus} cold"
    times: dict[str, list[float]] = {"jobs 1": [], jobs: [], warm: [], cold: []}
    startups: list[float] = []
    for _ in range(args.repeats):  # interleaved, so machine noise hits every way alike
        times["jobs 1"].append(timed(lambda: run_arena(config, 1)))
        times[jobs].append(timed(lambda: run_arena(config, args.cpus)))
        t = time.perf_counter()  # cold: what one `liars-dice arena --backend ray` costs
        ray.init(num_cpus=args.cpus, include_dashboard=False, log_to_driver=False, object_store_memory=100 * 1024**2)
        startups.append(time.perf_counter() - t)
        try:
            timed(lambda: run_arena(config, backend="ray"))  # workers start on the first tasks
            times[warm].append(timed(lambda: run_arena(config, backend="ray")))
        finally:
            ray.shutdown()
        times[cold].append(time.perf_counter() - t - times[warm][-1])
    startup = statistics.median(startups)
    med = {k: statistics.median(v) for k, v in times.items()}
    rows = {k: {"seconds": round(v, 2), "games_per_s": round(args.games / v, 1)} for k, v in med.items()}
    # overhead per game: wall time per game beyond a perfect split of the in-process run over the CPUs
    ideal = med["jobs 1"] / args.cpus
    overhead = {k: round(1000 * (med[k] - ideal) / args.games, 3) for k in (jobs, warm, cold)}
    out = {
        "rules": args.rules, "bots": args.bots, "games": args.games, "cpus": args.cpus, "repeats": args.repeats,
        "runs": rows, "ray_startup_s": round(startup, 2), "overhead_per_game_ms": overhead,
        "ray_minus_jobs_per_game_ms": round(1000 * (med[warm] - med[jobs]) / args.games, 3),
        "python": platform.python_version(), "ray": ray.__version__, "load_average": os.getloadavg(),
    }
    print(f"{args.games} games of {args.rules} ({args.bots}), median of {args.repeats} runs, {args.cpus} CPUs:")
    for k, v in rows.items():
        extra = f"  overhead {overhead[k]:+.3f} ms/game" if k in overhead else ""
        print(f"  {k:<12} {v['seconds']:>8.2f} s  {v['games_per_s']:>8.1f} games/s{extra}")
    print(f"  Ray start-up {startup:.2f} s; overhead = (time - jobs-1 time / {args.cpus}) / games")
    if args.json:
        print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
