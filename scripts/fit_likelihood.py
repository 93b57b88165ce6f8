"""Fit the strong bot's likelihood model from self-play.

Plays games between ``strong`` and ``probabilistic`` seats (every seat's
decisions are recorded with the actor's true hidden hand, god's-eye), builds the
features of :mod:`liars_dice.bots.likelihood` for every legal action of every
decision, and fits the ten weights by maximum likelihood (a conditional logit,
convex; Newton's method with a small ridge penalty). Writes
``src/liars_dice/data/likelihood.json`` with one entry per preset plus
``default`` (all presets pooled).

    .venv/bin/python scripts/fit_likelihood.py --games 150

Repeat to refit after the bot changes: the ``strong`` seats use the weights
already stored, so each run is one step of a self-play fixed-point iteration.
"""

from __future__ import annotations

import argparse
import json
import random
import time
from pathlib import Path

import numpy as np

from liars_dice.bots import make_bot
from liars_dice.bots.likelihood import (
    FEATURES,
    LikelihoodParams,
    lowest_raises,
    match_probs,
    rank_table,
    save_params,
)
from liars_dice.bots.inference import table_size, tail_logit, tail_table
from liars_dice.bots.strong import quantal
from liars_dice.engine import PRESETS, Bid, Calza, Challenge, Game, Rules, SeededDice

OUT = Path(__file__).resolve().parent.parent / "src" / "liars_dice" / "data" / "likelihood.json"


def _shown_match(rules: Rules, shown: list[int], wilds: bool) -> np.ndarray:
    return np.array(
        [sum(1 for d in shown if rules.matches(d, f, wilds)) for f in range(1, rules.faces + 1)], dtype=np.int64
    )


def decision_features(state, action) -> tuple[np.ndarray, int]:  # type: ignore[no-untyped-def]
    """Features of every legal action for the seat to move, shape ``(A, 10)``,
    and the index of ``action`` among them (bids in (face, quantity) order, then
    the challenge)."""
    rules: Rules = state.rules
    seat = state.to_move
    hand = state.hidden[seat]
    n = len(hand)
    nt = state.dice_in_play
    cur = state.current_bid
    wilds = state.wilds_active if cur is not None else rules.wild_face is not None
    all_shown = [d for s in state.shown for d in s]
    unseen = nt - n - len(all_shown)
    p = match_probs(rules, wilds)
    sm = _shown_match(rules, all_shown, wilds)
    k = _shown_match(rules, list(hand), wilds)  # own matches per face
    lo = lowest_raises(rules, cur, nt)
    ranks = rank_table(rules, nt)
    size = table_size(max(unseen, nt))
    base_rank = rules.rank(cur.quantity, cur.face) + 1 if cur is not None else 0
    rows = []
    idx = -1
    for f in range(1, rules.faces + 1):
        tl = tail_logit(size, float(p[f - 1]))[unseen]
        tp = tail_table(size, float(p[f - 1]))[unseen]
        for q in range(int(lo[f - 1]), nt + 1):
            need = min(max(q - k[f - 1] - sm[f - 1], 0), unseen + 1)
            rows.append([
                tl[need],
                k[f - 1] - n * p[f - 1],
                (ranks[f - 1, q - 1] - base_rank) / rules.faces,
                1.0 if f == rules.wild_face else 0.0,
                0.0,
                0.0,
                1.0 if cur is not None and q == lo[f - 1] else 0.0,
                1.0 if tp[need] >= 0.5 else 0.0,
                1.0 if need == 0 else 0.0,
                0.0,
            ])
            if isinstance(action, Bid) and action.quantity == q and action.face == f:
                idx = len(rows) - 1
    if cur is not None:
        f = cur.face
        tl = tail_logit(size, float(p[f - 1]))[unseen]
        tp = tail_table(size, float(p[f - 1]))[unseen]
        need = min(max(cur.quantity - k[f - 1] - sm[f - 1], 0), unseen + 1)
        rows.append([0.0, 0.0, 0.0, 0.0, 1.0, tl[need], 0.0, 0.0, 0.0, 1.0 if tp[need] < 0.5 else 0.0])
        if isinstance(action, Challenge):
            idx = len(rows) - 1
    assert idx >= 0
    return np.array(rows), idx


def _bot(name: str, seed: int):  # type: ignore[no-untyped-def]
    """A registered bot, or ``strong-quantal`` (:func:`liars_dice.bots.strong.quantal`)."""
    if name == "strong-quantal":
        return quantal(seed)
    return make_bot(name, seed)


def collect(rules: Rules, games: int, seed: int, mix: list[str]) -> list[tuple[np.ndarray, int]]:
    """Decisions of ``games`` games with seats drawn from ``mix``."""
    rng = random.Random(seed)
    data = []
    for g in range(games):
        n = rng.randint(rules.min_players, min(rules.max_players, 6))
        names = [f"p{i}" for i in range(n)]
        if rules.single_round:  # single rounds: every dice count up to the preset's
            game = Game.create(rules, names, dice=[rng.randint(1, rules.dice_per_player) for _ in names])
        else:
            game = Game.create(rules, names)
        bots = [_bot(rng.choice(mix), seed * 1000 + g * 10 + i) for i in range(n)]
        dice = SeededDice(seed * 7 + g)
        state = game.initial_state(g % n)
        while not state.is_over:
            if state.is_chance:
                state = state.roll(dice)
                continue
            seat = state.to_move
            dec = bots[seat].decide(state.view(seat))
            # The model covers bids and challenges of normal rounds: a calza and
            # a palifico round's moves (RULES.md perudo) are played, not fitted.
            if not isinstance(dec.action, Calza) and not state.palifico:
                data.append(decision_features(state, dec.action))
            state = state.apply(dec.action, dec.show, seat=seat)
    return data


def _objective(data: list[tuple[np.ndarray, int]], theta: np.ndarray, ridge: float):  # type: ignore[no-untyped-def]
    """Penalised mean log-likelihood, its gradient and Hessian."""
    grad = -ridge * theta
    hess = -ridge * np.eye(len(theta))
    ll = -0.5 * ridge * float(theta @ theta)
    m = len(data)
    for x, i in data:
        s = x @ theta
        s -= s.max()
        e = np.exp(s)
        pr = e / e.sum()
        ll += float(np.log(pr[i] + 1e-300)) / m
        mu = pr @ x
        grad += (x[i] - mu) / m
        xc = x - mu
        hess -= (xc * pr[:, None]).T @ xc / m
    return ll, grad, hess


def fit(data: list[tuple[np.ndarray, int]], ridge: float = 0.01, iters: int = 40) -> np.ndarray:
    """Penalised maximum-likelihood weights of the conditional logit, shape ``(10,)``.

    The bots are nearly deterministic, so unpenalised weights would grow without
    bound; the ridge ``ridge * |theta|^2 / 2`` (per decision) keeps the model soft,
    which is also what predicting unknown opponents needs. Damped Newton steps.
    """
    theta = LikelihoodParams().vector()
    ll, grad, hess = _objective(data, theta, ridge)
    for _ in range(iters):
        step = np.linalg.solve(hess, grad)
        t = 1.0
        while t > 1e-4:
            cand = theta - t * step
            ll2, g2, h2 = _objective(data, cand, ridge)
            if ll2 >= ll:
                break
            t *= 0.5
        if ll2 < ll:
            break
        done = ll2 - ll < 1e-7
        theta, ll, grad, hess = cand, ll2, g2, h2
        if done:
            break
    return theta


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=150, help="games per preset")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--mix", default="strong,probabilistic")
    ap.add_argument("--out", default=str(OUT))
    ap.add_argument("--presets", default="", help="refit only these presets (comma-separated), keep the rest")
    ap.add_argument("--ridge", type=float, default=0.01, help="L2 penalty per decision")
    a = ap.parse_args()
    mix = a.mix.split(",")
    fitted: dict[str, LikelihoodParams] = {}
    meta_all: dict = {}  # type: ignore[type-arg]
    only = [p for p in a.presets.split(",") if p]
    if only and Path(a.out).exists():
        old = json.loads(Path(a.out).read_text())
        fitted = {k: LikelihoodParams(**v) for k, v in old["presets"].items()}
        meta_all = old.get("meta", {})
    pooled: list[tuple[np.ndarray, int]] = []
    t0 = time.perf_counter()
    for name, rules in PRESETS.items():
        if only and name not in only:
            continue
        # A single round has few decisions: play ten times as many.
        data = collect(rules, a.games * (10 if rules.single_round else 1), a.seed, mix)
        pooled.extend(data)
        theta = fit(data, a.ridge)
        fitted[name] = LikelihoodParams.from_vector(theta)
        print(name, len(data), "decisions:", {f: round(float(t), 3) for f, t in zip(FEATURES, theta)}, flush=True)
    if not only:
        fitted["default"] = LikelihoodParams.from_vector(fit(pooled, a.ridge))
    meta = {"script": "scripts/fit_likelihood.py", "games_per_preset": a.games, "seed": a.seed, "mix": mix, "ridge": a.ridge,
            "decisions": len(pooled), "seconds": round(time.perf_counter() - t0, 1)}
    if only:
        meta_all.setdefault("refits", {})
        for name in only:
            meta_all["refits"][name] = meta
        meta = meta_all
    save_params(a.out, fitted, meta)
    print("wrote", a.out, meta)


if __name__ == "__main__":
    main()
