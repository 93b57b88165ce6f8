"""The arena on Ray (issue 10 "The arena on Ray"): one local Ray with 2 CPUs
for the module (Ray starts slowly on 2 shared cores); the report equals
``--jobs 2`` for the same seed, with an external ``cmd:`` bot on the Ray
workers; progress comes as tasks finish; a failing bot names its game; and
``liars-dice arena --backend ray --address auto`` runs on that cluster.
"""

from __future__ import annotations

import json
import os
import subprocess

import pytest

from liars_dice.arena import ArenaConfig, ArenaError, parse_entrants, run_arena
from liars_dice.arena.ray_backend import ray_chunks
from liars_dice.engine import Rules

ray = pytest.importorskip("ray", reason="the ray extra is not installed")


@pytest.fixture(scope="module")
def local_ray():
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, object_store_memory=100 * 1024**2)
    yield
    ray.shutdown()


def _config(cli: str, games: int = 16) -> ArenaConfig:
    spec = f"ext=cmd:{cli} bot random --rules classic --seed 5"
    return ArenaConfig(Rules.preset("classic"), tuple(parse_entrants(f"random,{spec},probabilistic")), games, seed=3, timeout=60.0)


def test_ray_chunks_cover_every_game_once() -> None:
    for games, cpus in [(1, 2), (16, 2), (1000, 3), (10**6, 64)]:
        chunks = ray_chunks(games, cpus)
        assert [g for c in chunks for g in c] == list(range(games))
        assert max(len(c) for c in chunks) <= 200


def test_the_ray_report_equals_jobs_2_with_an_external_bot(cli, local_ray) -> None:
    config = _config(cli)
    progress: list[int] = []
    on_ray = run_arena(config, 2, progress.append, backend="ray")
    assert on_ray.outcomes == run_arena(config, 2).outcomes
    assert on_ray.report() == run_arena(config, 2).report()
    assert sum(progress) == 16 and len(progress) == len(ray_chunks(16, 2)) > 1  # as each task finishes


def test_a_failing_bot_on_ray_names_the_game(local_ray) -> None:
    config = ArenaConfig(Rules.preset("classic"), tuple(parse_entrants("random,cmd:false")), 4, seed=1)
    with pytest.raises(ArenaError, match="^Game .*'false'.*exited with status 1"):
        run_arena(config, backend="ray")


def test_the_cli_runs_on_an_existing_cluster(cli, local_ray) -> None:
    args = [cli, "arena", "--rules", "classic", "--bots", "random,random,random", "--games", "12", "--seed", "4", "--json"]
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    on_ray = subprocess.run([*args, "--backend", "ray", "--address", "auto"], capture_output=True, text=True, timeout=300, env=env)
    assert on_ray.returncode == 0, on_ray.stderr
    jobs = subprocess.run([*args, "--jobs", "2"], capture_output=True, text=True, timeout=300)
    assert json.loads(on_ray.stdout) == json.loads(jobs.stdout)


@pytest.mark.parametrize(
    "extra, words",
    [
        (["--backend", "spark"], "no arena backend called 'spark'"),
        (["--address", "auto"], "--address names a Ray cluster, so it needs --backend ray"),
    ],
)
def test_bad_backend_options_are_one_sentence(cli, extra, words) -> None:
    proc = subprocess.run(
        [cli, "arena", "--bots", "random,random", "--games", "2", *extra], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 2 and words in proc.stderr and proc.stdout == ""
