"""The arena on Ray: games as Ray tasks, on a local Ray or an existing cluster.

Each task plays one chunk of game indices with :func:`~liars_dice.arena.run.play_one`,
exactly as a ``--jobs`` worker does; every game's dice and bot seeds come from
``(seed, game index)`` alone, so the outcomes, sorted by game, and the report
are the same as with ``--jobs``. A task starts the arena's external programs
(``cmd:`` entrants) on its worker and closes them when the chunk is done; the
program must therefore be installed on every node of a cluster.

``ray`` is imported only when this backend runs (the ``ray`` extra:
``pip install 'liars-dice-game[ray]'``). See ``docs/scaling.md``.

**A local Ray listens on loopback only.** A Ray cluster runs any code it is
sent, so the local Ray this backend starts must not be reachable from the
network. On Linux Ray binds its servers (GCS, raylet, workers, the runtime-env
agent) to every interface and takes the machine's network address as the
node's, even with ``_node_ip_address="127.0.0.1"`` (``ray.init`` maps a
loopback address back to the network one). Ray's own single-machine mode, the
one it uses on macOS and Windows, keeps every server on 127.0.0.1: the
environment variable ``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0`` selects it on any
system (``ray._private.ray_constants.ENABLE_RAY_CLUSTER``; Ray reads it when
imported, so :func:`init_local_ray` sets it before the import, and for a Ray
imported earlier sets the value it was read into, for the start only). After
the start the node's address is checked; a Ray that still took a network
address is stopped and the run refused (:class:`ArenaError` says why and how to
run on a Ray started by hand: ``ray start --head``, then ``--address auto``).
A driver joining such a loopback Ray from another process (``--address auto``)
needs the same mode in its environment (``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``);
otherwise it takes the network address and does not find the node.
Measured with Ray 2.60 on Linux (``tests/test_arena_ray.py`` reads
``/proc/net/tcp`` and ``/proc/net/tcp6`` during a run): every listening port
of Ray's processes is on 127.0.0.1 (or ``::ffff:127.0.0.1``); without the mode,
on ``[::]`` (every interface) and the network address.
"""

from __future__ import annotations

import ipaddress
import os
import sys
from collections.abc import Callable
from typing import Any

from ..bots import Bot
from ..engine import LiarsDiceError
from .run import ArenaConfig, ArenaError, Outcome, _close_external, _external_bots, play_one

#: Most games in one Ray task: enough to amortise a task's overhead (about a
#: millisecond), few enough that progress moves and work spreads over a cluster.
MAX_CHUNK = 200


#: Ray's switch for its single-machine mode (every server on loopback); see the module.
LOCAL_ONLY_ENV = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"


def is_loopback(address: str) -> bool:
    """Whether ``address`` (IPv4, IPv6 or IPv4-mapped IPv6) is a loopback address.

    >>> is_loopback("127.0.0.1"), is_loopback("::ffff:127.0.0.1"), is_loopback("192.0.2.2"), is_loopback("::")
    (True, True, False, False)
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def init_local_ray(cpus: int | None = None, **options: Any) -> None:
    """Start a local Ray that listens on loopback only (see the module).

    :param cpus: the CPUs it offers (default: all).
    :param options: more keyword arguments of ``ray.init``.
    :raises ArenaError: when Ray is missing or cannot start, or took a
        network address anyway (then it is stopped again).
    """
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage reports leave the machine
    before = os.environ.get(LOCAL_ONLY_ENV)
    os.environ[LOCAL_ONLY_ENV] = "0"  # read by Ray when imported, here and in the processes it starts
    imported = "ray" in sys.modules
    try:
        try:
            import ray
            from ray._private import ray_constants
        except ImportError:
            raise ArenaError(_MISSING) from None
        was = ray_constants.ENABLE_RAY_CLUSTER
        ray_constants.ENABLE_RAY_CLUSTER = False  # for a Ray imported before the variable was set
        try:
            ray.init(num_cpus=cpus, **options)
        except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError...
            raise ArenaError(f"Could not start a local Ray: {e}".rstrip(".") + ".") from None
        finally:
            if imported:
                ray_constants.ENABLE_RAY_CLUSTER = was
    finally:
        if before is None:
            os.environ.pop(LOCAL_ONLY_ENV, None)
        else:
            os.environ[LOCAL_ONLY_ENV] = before
    node = str(ray.util.get_node_ip_address())  # type: ignore[no-untyped-call, unused-ignore]  # ray leaves it untyped (a later one may not)
    if not is_loopback(node):
        ray.shutdown()
        raise ArenaError(
            f"The local Ray took the network address {node}, so it would listen beyond this machine, and a Ray "
            "cluster runs any code sent to it; start Ray yourself (ray start --head) and pass --address auto to run on it."
        )


_MISSING = "The Ray backend needs the 'ray' extra: pip install 'liars-dice-game[ray]', or in a clone .venv/bin/pip install -e '.[ray]'."


def ray_chunks(games: int, cpus: int) -> list[range]:
    """Game indices in chunks: about eight chunks per CPU, at most :data:`MAX_CHUNK` games each."""
    size = max(1, min(MAX_CHUNK, games // (max(1, cpus) * 8)))
    return [range(i, min(games, i + size)) for i in range(0, games, size)]


def play_chunk(config: ArenaConfig, games: range) -> list[Outcome]:
    """One Ray task: play ``games``, with this task's own external programs.

    :raises ArenaError: for a game that fails (the message names it).
    """
    external: dict[int, Bot] = {}
    try:
        try:
            _external_bots(config, external)
        except LiarsDiceError as e:
            raise ArenaError(e.message) from None
        return [play_one(config, g, external) for g in games]
    finally:
        _close_external(external)


def run_on_ray(
    config: ArenaConfig,
    cpus: int | None = None,
    address: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[Outcome]:
    """Play ``config.games`` games as Ray tasks; outcomes in game order.

    :param cpus: CPUs of the local Ray this starts (default: all); ignored
        with ``address``.
    :param address: an existing cluster (``ray://host:10001``, ``host:6379``
        or ``auto``); default: start a local Ray on loopback only
        (:func:`init_local_ray`) and stop it at the end.
    :param on_progress: called with the number of games just finished, as
        each task finishes.
    :raises ArenaError: when Ray is missing or cannot start or connect, when
        a local Ray would listen beyond this machine, or for the first game
        that fails (the other tasks are cancelled).
    """
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")  # no usage reports leave the machine
    try:
        import ray
    except ImportError:
        raise ArenaError(_MISSING) from None
    started = not ray.is_initialized()
    if started:
        options: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False, "logging_level": "ERROR"}
        if address:
            try:
                ray.init(address=address, **options)
            except Exception as e:  # Ray raises ConnectionError, RuntimeError, ValueError...
                raise ArenaError(f"Could not start or reach the Ray cluster at {address}: {e}".rstrip(".") + ".") from None
        else:
            init_local_ray(cpus, object_store_memory=100 * 1024**2, **options)
    try:
        total = int(ray.cluster_resources().get("CPU", 1))  # type: ignore[no-untyped-call, unused-ignore]  # ray leaves it untyped (a later one may not)
        task = ray.remote(num_cpus=1, max_retries=0)(play_chunk)
        config_ref = ray.put(config)
        pending = [task.remote(config_ref, chunk) for chunk in ray_chunks(config.games, total)]
        outcomes: list[Outcome] = []
        try:
            while pending:
                ready, pending = ray.wait(pending, num_returns=1)
                try:
                    part = ray.get(ready[0])
                except ray.exceptions.RayTaskError as e:
                    cause = e.cause
                    if isinstance(cause, ArenaError):
                        raise ArenaError(cause.message) from None
                    raise ArenaError(f"A Ray task failed: {type(cause).__name__}: {cause}.") from None
                outcomes.extend(part)
                if on_progress is not None:
                    on_progress(len(part))
        finally:
            for ref in pending:
                ray.cancel(ref, force=True)
    finally:
        if started:
            ray.shutdown()
    outcomes.sort(key=lambda o: o.game)
    return outcomes
