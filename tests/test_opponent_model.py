"""Opponent models from records (issue 11, "Opponent models from records"):
the file format and its bounds, the fit on players' actual dice, the priors,
the policy, ``liars-dice model fit / show`` through the real command, the safe
best response in ``strong``, and updates within one game."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any
import subprocess
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liars_dice.bots import make_bot
from liars_dice.bots.exploit import EPSILON, evaluate, plan_for
from liars_dice.bots.opponent_model import (
    BINS,
    MAX_MODEL_BYTES,
    ModelError,
    OpponentModel,
    fit,
    prior_challenge_mean,
)
from liars_dice.bots.strong import LEARN_MIN_ROUNDS, StrongBot
from liars_dice.engine import CHALLENGE, Bid, Game, Rules, SeatView, SeededDice
from liars_dice.engine.state import RoundResult
from liars_dice.match import play_game
from liars_dice.records import record_from_state


def _records(n: int, preset: str = "classic", players: int = 3, seed: int = 0) -> list[dict]:
    out = []
    for g in range(n):
        game = Game.create(Rules.preset(preset), ["ann", "bob", "cy"][:players])
        bots = [make_bot("probabilistic", seed + g * 7 + s) for s in range(players)]
        out.append(record_from_state(play_game(game, bots, SeededDice(seed + g))))
    return out


# -- the fit -------------------------------------------------------------------


def test_fit_counts_every_round_of_the_player_and_round_trips() -> None:
    recs = _records(5)
    model = fit(recs, "bob")
    assert model.records == 5 and model.rules == "classic"
    held = sum(1 for r in recs for rnd in r["rounds"] if rnd["dice"].get("bob"))
    assert model.rounds == held  # every round bob held dice in, none after he is out
    assert model.challenged.sum() <= model.faced.sum()
    assert model.bids.sum() + model.openings.sum() > 0
    again = OpponentModel.loads(model.dumps())
    assert again.to_json() == model.to_json()


def test_few_records_stay_close_to_the_prior() -> None:
    """With Beta/Dirichlet pseudo-counts, one round moves the estimates little; many move them far."""
    empty = OpponentModel("x")
    assert np.allclose(empty.challenge_rate(), prior_challenge_mean())
    assert empty.bluff_rate() == pytest.approx(0.5)
    one = fit(_records(1), "ann")
    many = fit(_records(40), "ann")
    d_one = np.abs(one.challenge_rate() - prior_challenge_mean()).max()
    d_many = np.abs(many.challenge_rate() - prior_challenge_mean()).max()
    assert d_one < d_many
    # probabilistic bids what its own dice support: few bluffs once enough is seen
    assert many.bluff_rate() < 0.25 < one.bluff_rate()


def test_a_bid_is_read_against_the_bidders_own_dice() -> None:
    """A round where bob bid five 6s holding no 6 and no wild: a bluff (chance < 1/2)."""
    rules = Rules.preset("classic")
    res = RoundResult(
        bid=Bid(5, 6), bidder=1, challenger=0, count=1, wilds_active=True,
        bids=((0, Bid(2, 6), ()), (1, Bid(5, 6), ())),
        revealed=((6, 6, 2), (2, 3, 4)), lost=(0, 1), out=(), next_opener=1, loser=1,
    )
    m = OpponentModel("bob")
    assert m.observe_round(rules, res, 1)
    assert m.bids[:5].sum() == 1 and m.openings.sum() == 0
    assert m.faced.sum() == 1 and m.challenged.sum() == 0  # bob faced 2x6 and raised
    ann = OpponentModel("ann")
    ann.observe_round(rules, res, 0)
    assert ann.openings.sum() == 1 and ann.challenged.sum() == 1


def test_unknown_player_and_bad_record_give_one_sentence() -> None:
    recs = _records(1)
    with pytest.raises(ModelError, match=r"^No record has a player called 'zed'\.$"):
        fit(recs, "zed")
    bad = dict(recs[0])
    bad["rounds"] = [{"dice": {"ann": [9]}, "moves": []}]
    with pytest.raises(ModelError, match=r"^g2\.json does not replay: "):
        fit([recs[0], bad], "ann", labels=["g1.json", "g2.json"])


def test_the_table_counts_exact_small_situations_and_moves_the_policy() -> None:
    """With at most four dice in play, moves are also counted by exact situation
    (sorted hand, dice counts, bids), and the policy there leans to the counts."""
    rules = Rules.preset("classic")
    res = RoundResult(
        bid=Bid(2, 6), bidder=0, challenger=1, count=0, wilds_active=True,
        bids=((0, Bid(2, 6), ()),), revealed=((3,), (4,)), lost=(1, 0), out=(0,), next_opener=None, loser=0,
    )
    m = OpponentModel("bob")
    for _ in range(20):
        m.observe_round(rules, res, 1)
    assert m.table == {"1,1|4|2x6": {"liar": 20}}
    state = Game.create(rules, ["ann", "bob"], dice=(1, 1)).initial_state(0).deal([[3], [4]]).apply(Bid(2, 6))
    view = state.view(1)
    assert m.policy(view)[CHALLENGE] > 0.9 > m.generic_policy(view)[CHALLENGE] - 0.5
    assert OpponentModel.loads(m.dumps()).table == m.table


# -- the file's bounds -----------------------------------------------------------


def _good() -> dict:
    return OpponentModel("ann").to_json()


@pytest.mark.parametrize(
    "change, sentence",
    [
        (lambda d: d.update(format="pgn"), "This is not an opponent model"),
        (lambda d: d.update(version=2), "The model's version 2 is not one"),
        (lambda d: d.update(extra=1), "unknown field 'extra'"),
        (lambda d: d.update(player=""), "player is a name"),
        (lambda d: d.update(player="x" * 201), "player is a name"),
        # attack3: names reach terminals (`model show`): an ESC rewrote the screen, as the engine's player names
        (lambda d: d.update(player="\x1b[2Jann"), "player may hold only printable characters"),
        (lambda d: d.update(rules="classic\u202e"), "rules may hold only printable characters"),
        (lambda d: d.update(bids=[0] * 9), "bids is a list of 10 counts"),
        (lambda d: d.update(bids=[-1] + [0] * 9), "bids is a whole number"),
        (lambda d: d.update(bids=[10**10] + [0] * 9), "bids is a whole number"),
        (lambda d: d.update(bids=[True] + [0] * 9), "bids is a whole number"),
        (lambda d: d["challenge"].update(challenged=[1] + [0] * 9), "exceed the bids faced"),
        (lambda d: d["prior"].update(bid_alpha=0), "prior bid_alpha is a number above 0"),
        (lambda d: d["prior"].update(bid_alpha=float("inf")), "prior bid_alpha"),
        (lambda d: d.update(table={"1,1|4|2x6": {"jump": 1}}), "has a move 'jump' that is not QxF, liar or calza"),
        (lambda d: d.update(table={"x|4|": {"liar": 1}}), "that is not DICE|HAND|BIDS"),
        (lambda d: d.update(table={"1,1|4|": {}}), "holds 1 to 64 moves"),
        (lambda d: d.update(table={f"1,1|4|{q}x2": {"liar": 1} for q in range(4001)}), "at most 4,000 situations"),
    ],
)
def test_a_bad_model_is_refused_with_one_sentence(change, sentence) -> None:
    d = _good()
    change(d)
    with pytest.raises(ModelError, match=sentence) as e:
        OpponentModel.from_json(d)
    assert e.value.message.count(". ") == 0 and e.value.message.endswith(".")


def test_a_model_file_is_bounded_in_size() -> None:
    with pytest.raises(ModelError, match="a model is at most"):
        OpponentModel.loads(" " * (MAX_MODEL_BYTES + 1))
    with pytest.raises(ModelError, match="not valid JSON"):
        OpponentModel.loads("[" * 60_000)


@settings(max_examples=40, deadline=None)
@given(
    faced=st.lists(st.integers(0, 10**6), min_size=BINS, max_size=BINS),
    share=st.lists(st.floats(0, 1), min_size=BINS, max_size=BINS),
    bids=st.lists(st.integers(0, 10**6), min_size=BINS, max_size=BINS),
    jumps=st.lists(st.integers(0, 10**6), min_size=5, max_size=5),
    seed=st.integers(0, 10**6),
    n_bids=st.integers(0, 4),
)
def test_any_model_round_trips_and_its_policy_is_a_distribution_over_legal_moves(
    faced, share, bids, jumps, seed, n_bids
) -> None:
    d = _good()
    d["challenge"] = {"faced": faced, "challenged": [int(f * s) for f, s in zip(faced, share)]}
    d["bids"], d["openings"], d["jumps"] = bids, bids[::-1], jumps
    m = OpponentModel.loads(json.dumps(d))
    assert m.to_json() == d
    rules = Rules.preset("classic")
    state = Game.create(rules, ["ann", "bob"], dice=(2, 3)).initial_state().roll(SeededDice(seed))
    rng = np.random.default_rng(seed)
    for _ in range(n_bids):
        bids_now = [a for a in state.legal_actions() if isinstance(a, Bid)]
        if not bids_now:
            break
        state = state.apply(bids_now[int(rng.integers(0, min(5, len(bids_now))))])
    view = state.view(state.to_move)
    policy = m.policy(view)
    assert sum(policy.values()) == pytest.approx(1.0)
    assert set(policy) <= set(view.legal_actions())
    assert all(p >= 0 for p in policy.values())
    assert (CHALLENGE in policy) == (view.current_bid is not None)


# -- the command -------------------------------------------------------------------


def test_model_fit_and_show_through_the_command(cli, tmp_path: Path) -> None:
    """Records from `play --watch --record`, fitted by `model fit`, read by `model show`."""
    paths = []
    for seed in (1, 2):
        p = tmp_path / f"g{seed}.json"
        proc = subprocess.run(
            [cli, "play", "--watch", "--rules", "classic", "--players", "3", "--seed", str(seed), "--record", str(p)],
            capture_output=True, text=True, timeout=120, input="n\n",
        )
        assert proc.returncode == 0, proc.stderr
        paths.append(str(p))
    players = json.loads(Path(paths[0]).read_text())["players"]
    # The bots' names follow the game's seed (issue 17 "Names for people"): seat
    # the same names in the second record, so one player is in both.
    second = Path(paths[1]).read_text()
    for old, new in zip(json.loads(second)["players"], players):
        second = second.replace(json.dumps(old), json.dumps(f"\u0000{new}"))
    Path(paths[1]).write_text(second.replace("\\u0000", ""))
    out = tmp_path / "m.json"
    proc = subprocess.run([cli, "model", "fit", *paths, "--player", players[1], "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert f"Fitted {players[1]} on 2 record(s)" in proc.stdout
    model = OpponentModel.loads(out.read_text())
    assert model.records == 2 and model.player == players[1]
    show = subprocess.run([cli, "model", "show", str(out)], capture_output=True, text=True, timeout=60)
    assert show.returncode == 0 and "bluff rate" in show.stdout and "Raises by ranks past the smallest raise" in show.stdout
    # piped (80 columns), no header is cut short (new user, attack4)
    assert "…" not in show.stdout and max(len(line) for line in show.stdout.splitlines()) <= 80
    # whole words in the headers, and the prior explained (a new user, stop 27, read "chal-/lenged" and a 0.95
    # challenge rate on a row with no bids faced)
    assert "challenged" in show.stdout and "openings" in show.stdout and "-\n" not in show.stdout
    assert "smoothed toward a prior" in " ".join(show.stdout.split())


def test_model_fit_refuses_bad_input_with_one_sentence(cli, tmp_path: Path) -> None:
    rec = tmp_path / "g.json"
    rec.write_text(json.dumps(_records(1)[0]))
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    out = tmp_path / "m.json"
    cases = [
        ([str(rec), "--player", "zed"], "No record has a player called 'zed'."),
        ([str(rec), str(bad), "--player", "ann"], f"{bad} does not replay: The record has no 'rules'"),
        ([str(tmp_path / "missing.json"), "--player", "ann"], "Cannot read"),
    ]
    for args, sentence in cases:
        proc = subprocess.run([cli, "model", "fit", *args, "-o", str(out)], capture_output=True, text=True, timeout=60)
        assert proc.returncode == 2 and sentence in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1
        assert not out.exists()
    proc = subprocess.run([cli, "model", "show", str(rec)], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "This is not an opponent model" in proc.stderr


def test_a_model_is_of_one_rule_set(cli, tmp_path: Path) -> None:
    """attack3: a model fitted on perudo games was used for classic without a word
    (the protocol's ``models``, ``arena --model``), and `model fit` mixed records of
    several rule sets into one model named for the first."""
    classic, perudo = _records(1)[0], _records(1, preset="perudo")[0]
    with pytest.raises(ModelError, match="is a game of 'perudo', not 'classic' as the first; a model is of one rule set"):
        fit([classic, perudo], "ann", labels=["a.json", "b.json"])
    assert fit([classic, perudo], "ann", rules=Rules.preset("perudo")).rules == "perudo"
    assert fit([classic, perudo], "ann", rules=Rules.preset("perudo")).records == 1
    model = fit([perudo], "ann")
    with pytest.raises(ModelError, match="of 'ann' playing 'perudo', not 'classic'"):
        model.check_rules(Rules.preset("classic"))
    OpponentModel("ann").check_rules(Rules.preset("classic"))  # no rules: for any
    p = tmp_path / "ann.json"
    p.write_text(model.dumps())
    proc = subprocess.run([cli, "arena", "--rules", "classic", "--bots", "random,ann=random", "--games", "1",
                           "--model", f"ann={p}"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "playing 'perudo', not 'classic'" in proc.stderr, proc.stderr
    from liars_dice.protocol import answer

    request = {"rules": "classic", "players": ["ann", "bob"], "seat": "bob", "dice": {"ann": 1, "bob": 1},
               "hand": [3], "models": {"ann": model.to_json()}}
    reply = json.loads(answer(json.dumps(request).encode(), Rules.preset("classic"), StrongBot(seed=1)))
    assert "playing 'perudo', not 'classic'" in reply["error"], reply


def test_a_model_file_is_utf8(cli, tmp_path: Path) -> None:
    """attack3: a UTF-16 model file was read (json.loads takes UTF-16 bytes) and then
    `arena --model` failed with a UnicodeDecodeError traceback passing it on as text."""
    p = tmp_path / "m16.json"
    p.write_bytes(OpponentModel("ann").dumps().encode("utf-16"))
    with pytest.raises(ModelError, match="not UTF-8 text"):
        OpponentModel.loads(p.read_bytes())
    proc = subprocess.run([cli, "arena", "--rules", "classic", "--bots", "random,ann=random", "--games", "1",
                           "--model", f"ann={p}"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.strip() == f"{p}: The model is not UTF-8 text.", proc.stderr


def test_model_show_prints_names_as_text_not_markup(cli, tmp_path: Path) -> None:
    """attack3: a model whose player was ``[/bold]x`` crashed `model show` with a
    Rich MarkupError traceback, and ``[link=...]`` in its rules was read as markup."""
    d = _good()
    d.update(player="[/bold]x", rules="[link=http://example.com]classic[/link]")
    p = tmp_path / "m.json"
    p.write_text(json.dumps(d))
    show = subprocess.run([cli, "model", "show", str(p)], capture_output=True, text=True, timeout=60)
    assert show.returncode == 0, show.stderr
    assert "[/bold]x ([link=http://example.com]classic[/link])" in show.stdout


def test_model_fit_holds_one_record_at_a_time(tmp_path: Path) -> None:
    """attack3: `model fit` read every file before fitting (up to 100,000 records of
    32 MiB each: all of them in memory at once). It reads one at a time."""
    import tracemalloc

    from typer.testing import CliRunner

    from liars_dice.cli import app

    text = json.dumps(_records(1)[0])
    paths = []
    for i in range(12):
        p = tmp_path / f"g{i}.json"
        p.write_text(text + " " * 2_000_000)  # 2 MB each, as a long game's record
        paths.append(str(p))

    def peak(files: list[str]) -> int:
        tracemalloc.start()
        try:
            result = CliRunner().invoke(app, ["model", "fit", *files, "--player", "ann", "-o", str(tmp_path / "m.json")])
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
            assert result.exit_code == 0, result.output

    peak(paths[:1])  # imports and caches
    one, twelve = peak(paths[:1]), peak(paths)
    assert twelve - one < 8_000_000, (one, twelve)  # all twelve at once hold 11 x 2 MB more


# -- strong with a model ------------------------------------------------------------------


def _always_bluffing(rules: Rules, observed: int = 100) -> OpponentModel:
    """A bluffer who never challenges; with ``observed`` > 0, its situation
    table holds that many moves of its policy at every one-die situation of up
    to two bids (a data-biased plan trusts the model only where data exist)."""
    m = OpponentModel("opp", rules=rules.name)
    m.bids[0] = m.openings[0] = 500  # bids with no chance given their own dice
    m.faced[:] = 100  # never challenges
    if observed and rules.name == "joker":
        from liars_dice.engine.state import Phase
        from liars_dice.bots.opponent_model import situation_key
        from liars_dice.solver.tree import BidTree

        tree = BidTree(rules, (1, 1))
        for d in (0, 1, 2):
            for mask in tree.depths[d].masks:
                bids = [b for j, b in enumerate(tree.bids) if int(mask) >> j & 1]
                seen = tuple((i % 2, b, ()) for i, b in enumerate(bids))
                for face in range(1, 7):
                    view = SeatView(rules, ("p0", "p1"), d % 2, (1, 1), (face,), ((), ()), seen, Phase.BID, d % 2,
                                    True, (), None)
                    probs = m.generic_policy(view)
                    entry = {str(a): round(observed * p) for a, p in probs.items() if round(observed * p) > 0}
                    if entry:
                        m.table[situation_key((1, 1), d % 2, (face,), bids)] = entry
    return m


def _memo(fn: Callable[[SeatView], Mapping[Any, float]]) -> Callable[[SeatView], Mapping[Any, float]]:
    """``fn`` with its answer kept per view (views are frozen and hashable)."""
    kept: dict[SeatView, Mapping[Any, float]] = {}

    def cached(view: SeatView) -> Mapping[Any, float]:
        if view not in kept:
            kept[view] = fn(view)
        return kept[view]

    return cached


def test_the_plan_is_safe_against_the_equilibrium() -> None:
    """The mixing weight keeps the loss against the equilibrium within epsilon
    (checked by evaluating the mixture exactly), and the data-biased plan does
    better against the model than the equilibrium does; a model with no
    observation of the position gets no plan (nothing is trusted)."""
    from liars_dice.bots.exploit import _table_fn, plan_fn

    rules = Rules.preset("joker")
    model = _always_bluffing(rules)
    # Each policy is a pure function of the view, so its answers are kept
    # (the 8 exact walks meet each view once per opponent hand and per walk:
    # 70 s without the cache, most of it strong's search past the tables).
    eq = _memo(_table_fn(rules))
    bluffer = _memo(model.policy)
    for role in (0, 1):
        plan = plan_for(rules, model, (1, 1), role)
        assert plan is not None and 0 < plan.lam <= 1 and plan.observed > 0
        assert plan.lam * plan.loss <= EPSILON + 1e-12
        assert plan.loss <= plan.worst + 0.01  # the loss against one policy is at most the loss against the worst
        sign = 1 if role == 0 else -1
        fns = [eq, eq]
        fns[1 - role] = bluffer
        v_eq_vs_model = sign * evaluate(rules, (fns[0], fns[1]), (1, 1))
        fns[role] = _memo(plan_fn(plan, rules))
        v_plan_vs_model = sign * evaluate(rules, (fns[0], fns[1]), (1, 1))
        assert v_plan_vs_model > v_eq_vs_model + 0.03
        fns[1 - role] = eq  # the loss against the equilibrium, exactly: within the bound
        v_plan_vs_eq = sign * evaluate(rules, (fns[0], fns[1]), (1, 1))
        v_eq = sign * evaluate(rules, (eq, eq), (1, 1))
        assert v_eq - v_plan_vs_eq <= plan.loss + 1e-4  # (uint8 tables: both read the same rounded policy)
    assert plan_for(rules, _always_bluffing(rules, observed=0), (1, 1), 0) is None


def test_strong_with_a_model_plays_legal_moves_and_its_plan() -> None:
    rules = Rules.preset("joker")
    model = _always_bluffing(rules)
    wins = 0
    for g in range(40):
        game = Game.create(rules, ["me", "opp"], dice=(1, 1))
        bot = StrongBot(g, models={"opp": model}, epsilon=2.0)  # lambda 1: always the best response
        final = play_game(game, [bot, make_bot("random", g)], SeededDice(g), start=g % 2)
        wins += final.winner == 0
    assert wins >= 25  # against random, the best response to a bluffer wins far more than half


def test_strong_updates_its_model_from_revealed_rounds() -> None:
    """Within one game, rounds where an opponent bids with no support raise
    their bluff estimate in `strong`'s model of them (the given model is untouched)."""
    rules = Rules.preset("classic")
    given = OpponentModel("bob", rules="classic")
    bot = StrongBot(1, models={"bob": given})
    before = given.bluff_rate()
    results = []
    for r in range(6):
        results.append(RoundResult(
            bid=Bid(6, 6), bidder=1, challenger=0, count=0, wilds_active=True,
            bids=((0, Bid(1, 2), ()), (1, Bid(6, 6), ())),
            revealed=((2, 2, 3, 4, 5), (2, 3, 4, 5, 5)), lost=(0, 1), out=(), next_opener=1, loser=1,
        ))
    game = Game.create(rules, ["ann", "bob"])
    state = game.initial_state(0).roll(SeededDice(3))
    base = state.view(0)
    view = SeatView(**{**{f: getattr(base, f) for f in base.__dataclass_fields__}, "results": tuple(results)})
    bot.decide(view)
    learned = bot.model_of("bob")
    assert learned is not None and learned.rounds == 6
    assert learned.bluff_rate() > before + 0.15  # (5 + 6) / (10 + 6) from 5 / 10
    assert given.rounds == 0 and given.bluff_rate() == before
    # an opponent with no given model is learned too, and exploited only after LEARN_MIN_ROUNDS
    fresh = StrongBot(1)
    fresh.decide(view)
    assert fresh.model_of("bob") is not None and fresh.model_of("bob").rounds == 6 < LEARN_MIN_ROUNDS


# -- the protocol field and the arena ------------------------------------------------


def test_protocol_models_field_reaches_strong_and_an_external_program(tmp_path: Path) -> None:
    """A request's `models` goes to a bot that takes models; `ExternalBot(models=...)`
    sends them (the program here is `liars-dice bot strong`, which takes them)."""
    from liars_dice.protocol import ExternalBot, parse_request
    from liars_dice.protocol.convert import models_from_request
    from liars_dice.protocol.messages import MODELS_UNSUPPORTED
    from liars_dice.protocol.serve import answer

    rules = Rules.preset("classic")
    state = Game.create(rules, ["ann", "bob"], dice=(1, 1)).initial_state(0).roll(SeededDice(5))
    from liars_dice.protocol import request_from_view

    req = request_from_view(state.view(0))
    req["models"] = {"bob": _always_bluffing(rules).to_json()}
    line = json.dumps(req).encode()
    got = models_from_request(parse_request(line))
    assert set(got) == {"bob"} and got["bob"].bids[0] == 500
    assert "error" not in json.loads(answer(line, rules, StrongBot(1)))
    assert json.loads(answer(line, rules, make_bot("random", 1))) == {"error": MODELS_UNSUPPORTED}
    import shutil

    cli_path = shutil.which("liars-dice") or str(Path(__file__).resolve().parent.parent / ".venv" / "bin" / "liars-dice")
    with ExternalBot([cli_path, "bot", "strong", "--rules", "classic", "--seed", "1"], timeout=60,
                     models={"bob": _always_bluffing(rules).to_json()}) as ext:
        assert ext.decide(state.view(0)).action in state.legal_actions()
    with ExternalBot([cli_path, "bot", "random", "--rules", "classic", "--seed", "1"], timeout=60,
                     models={"bob": _always_bluffing(rules).to_json()}) as ext:
        from liars_dice.protocol import BotError

        with pytest.raises(BotError, match="Extra inputs are not permitted"):
            ext.decide(state.view(0))


def test_arena_model_option(cli, tmp_path: Path) -> None:
    """`--model NAME=PATH` gives the model of entrant NAME to the other seats' bots; bad specs are one sentence."""
    rec = tmp_path / "g.json"
    rec.write_text(json.dumps(_records(1)[0]))
    model = tmp_path / "bob.json"
    subprocess.run([cli, "model", "fit", str(rec), "--player", "bob", "-o", str(model)], check=True, capture_output=True)
    ok = subprocess.run(
        [cli, "arena", "--rules", "classic", "--bots", "strong,bob=probabilistic", "--model", f"bob={model}",
         "--games", "4", "--seed", "1", "--json"], capture_output=True, text=True, timeout=300,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["games"] == 4
    for spec, sentence in [
        ("zed=" + str(model), "--model names 'zed', which is not an entrant here (strong, bob)."),
        ("bob", "--model takes NAME=PATH"),
        (f"bob={rec}", "This is not an opponent model"),
    ]:
        bad = subprocess.run([cli, "arena", "--rules", "classic", "--bots", "strong,bob=probabilistic", "--model", spec,
                              "--games", "2"], capture_output=True, text=True, timeout=120)
        assert bad.returncode == 2 and sentence in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_arena_gives_the_model_to_the_other_seats_only() -> None:
    from liars_dice.arena.run import _give_models

    text = _always_bluffing(Rules.preset("classic")).dumps()
    bot = StrongBot(1)
    _give_models(bot, "strong", (("opp", text), ("strong", text)))
    assert bot.model_of("opp") is not None and bot.model_of("strong") is None


def test_a_model_learned_from_nothing_is_exploited_only_when_asked() -> None:
    """Default `strong` keeps its equilibrium play (and move time) without given
    models; `exploit_learned=True` uses the learned model once it holds enough rounds."""
    rules = Rules.preset("joker")
    res = RoundResult(
        bid=Bid(2, 6), bidder=1, challenger=0, count=0, wilds_active=True,
        bids=((0, Bid(1, 2), ()), (1, Bid(2, 6), ())), revealed=((3,), (4,)), lost=(0, 1), out=(),
        next_opener=0, loser=1,
    )
    state = Game.create(rules, ["ann", "bob"], dice=(1, 1)).initial_state(0).deal([[6], [2]])
    base = state.view(0)
    fields = {f: getattr(base, f) for f in base.__dataclass_fields__}
    view = SeatView(**{**fields, "results": (res,) * LEARN_MIN_ROUNDS})
    plain, eager = StrongBot(1), StrongBot(1, exploit_learned=True)
    plain.decide(view)
    eager.decide(view)
    assert plain.model_of("bob").rounds == LEARN_MIN_ROUNDS  # both learn
    assert eager.model_of("bob").rounds == LEARN_MIN_ROUNDS
    assert eager._round_mode is not None  # a plan was made for this round
    assert plain._round_mode is None


def test_a_model_at_the_maximum_counts_keeps_learning_without_error() -> None:
    """attack4: a model read with counts at MAX_COUNT (valid) made ``observe_round``
    raise ModelError at the next revealed round, so ``strong`` learning it crashed
    mid-game; counts now stop at the maximum, as the table's do."""
    from liars_dice.bots import make_bot
    from liars_dice.bots.opponent_model import MAX_COUNT
    from liars_dice.bots.strong import StrongBot
    from liars_dice.engine import Game, SeededDice
    from liars_dice.match import play_game

    rules = Rules.preset("classic")
    m = OpponentModel("p1", rules="classic")
    for a in (m.bids, m.openings, m.faced, m.challenged, m.jumps):
        a[:] = MAX_COUNT
    m = OpponentModel.loads(m.dumps())  # a valid file
    game = Game.create(rules, ["p0", "p1"], dice=[2, 2])
    play_game(game, [StrongBot(seed=1, models={"p1": m}, search_endgames=True), make_bot("probabilistic", 1)],
              SeededDice(7))
    m2 = OpponentModel("p1", rules="classic")
    m2.faced[:] = MAX_COUNT
    m2.challenged[:] = MAX_COUNT
    m2.rounds = MAX_COUNT
    m2._check_bounds()
    assert int(m2.faced.max()) == MAX_COUNT and m2.rounds == MAX_COUNT
    assert OpponentModel.loads(m2.dumps()).faced.max() == MAX_COUNT


def test_model_show_at_the_largest_counts_cuts_nothing(cli, tmp_path: Path) -> None:
    """attack5: a model at MAX_COUNT (ten digits) overflowed 80 columns piped, and
    Rich cut both counts (``1000000…``, a wrong number) and headers (``chan…``).
    Every count and header is shown whole within 80 columns."""
    from liars_dice.bots.opponent_model import BINS, JUMP_EDGES, MAX_COUNT

    d = _good()
    d.update(records=MAX_COUNT, rounds=MAX_COUNT, bids=[MAX_COUNT] * BINS, openings=[MAX_COUNT] * BINS,
             jumps=[MAX_COUNT] * len(JUMP_EDGES), challenge={"faced": [MAX_COUNT] * BINS, "challenged": [MAX_COUNT] * BINS})
    p = tmp_path / "m.json"
    p.write_text(json.dumps(d))
    show = subprocess.run([cli, "model", "show", str(p)], capture_output=True, text=True, timeout=60)
    assert show.returncode == 0, show.stderr
    assert "…" not in show.stdout and max(len(line) for line in show.stdout.splitlines()) <= 80
    # whole words in the headers, and the prior explained (a new user, stop 27, read "chal-/lenged" and a 0.95
    # challenge rate on a row with no bids faced)
    assert "challenged" in show.stdout and "openings" in show.stdout and "-\n" not in show.stdout
    assert "smoothed toward a prior" in " ".join(show.stdout.split())
    assert "chance" in show.stdout and "challenge" in show.stdout and "opening" in show.stdout


def test_a_record_without_the_player_is_skipped_aloud(cli, tmp_path: Path) -> None:
    """A new user (stop 27) fitted 'you' on two records, one without 'you', and
    read only "Fitted you on 1 record(s)": nothing said the other was skipped."""
    two, three = _records(1, players=2)[0], _records(1, players=3)[0]
    skipped: list[str] = []
    model = fit([two, three], "cy", labels=["two.json", "three.json"], skipped=skipped)
    assert model.records == 1 and skipped == ["two.json has no player called 'cy'."]
    skipped.clear()
    fit([two, _records(1, preset="perudo")[0]], "ann", labels=["c.json", "p.json"], rules=Rules.preset("perudo"),
        skipped=skipped)
    assert skipped == ["c.json is a game of 'classic', not 'perudo'."]
    paths = []
    for i, rec in enumerate([three, two, two]):
        p = tmp_path / f"r{i}.json"
        p.write_text(json.dumps(rec))
        paths.append(str(p))
    out = tmp_path / "m.json"
    proc = subprocess.run([cli, "model", "fit", *paths, "--player", "cy", "-o", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Fitted cy on 1 record(s) (2 skipped)" in proc.stdout
    assert proc.stderr.splitlines() == [f"Skipped: {paths[1]} has no player called 'cy'.",
                                        f"Skipped: {paths[2]} has no player called 'cy'."]
