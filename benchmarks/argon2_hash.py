"""The time of one Argon2id password hash (issue 18), with the parameters the
server uses (argon2-cffi's defaults, RFC 9106's second recommended option, the
low-memory profile: 3 passes, 64 MiB, 4 lanes), against a named peer: the same
memory and lanes with one pass (t=1), to show what the two extra passes cost.

    PYTHONPATH=src python benchmarks/argon2_hash.py --runs 20

Prints the median of ``--runs`` hashes (and of ``verify``) in milliseconds,
and the ratio to the peer.
"""

from __future__ import annotations

import argparse
import statistics
import time

from argon2 import PasswordHasher


def median_ms(fn: object, runs: int) -> float:
    times = []
    for _ in range(runs):
        t0 = time.perf_counter()
        fn()  # type: ignore[operator]
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    args = ap.parse_args()
    ours = PasswordHasher()  # what the server's Settings default to
    peer = PasswordHasher(time_cost=1, memory_cost=ours.memory_cost, parallelism=ours.parallelism)
    pw = "correct horse battery staple"
    stored = ours.hash(pw)
    print(f"server: Argon2id t={ours.time_cost} m={ours.memory_cost} KiB p={ours.parallelism} "
          f"hash_len={ours.hash_len} salt_len={ours.salt_len}")
    h = median_ms(lambda: ours.hash(pw), args.runs)
    v = median_ms(lambda: ours.verify(stored, pw), args.runs)
    p = median_ms(lambda: peer.hash(pw), args.runs)
    print(f"hash   median of {args.runs}: {h:.1f} ms")
    print(f"verify median of {args.runs}: {v:.1f} ms")
    print(f"peer (t=1, same memory) hash median: {p:.1f} ms; ratio server/peer {h / p:.2f}")


if __name__ == "__main__":
    main()
