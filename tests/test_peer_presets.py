"""The comparison presets match their peers (issue 3, section 1).

Sources: OpenSpiel's ``open_spiel/games/liars_dice/liars_dice.cc`` (bid id
``(q - 1) * 6 + (f - 1)``, "dice_sides_ (e.g. 6) is wild, so it always
matches", ``matches >= quantity`` means the bidder wins, player 0 bids first,
one die each by default) and ``shared/peers/dudo-ai/README.md`` (the same ids,
face 1 wild, a bid on 1s counts 1s only, player 0 moves first).
"""

from __future__ import annotations

import random

import pytest

from liars_dice.engine import CHALLENGE, Bid, Game, Rules, legal_actions


def _peer_id(bid: Bid) -> int:
    return (bid.quantity - 1) * 6 + (bid.face - 1)


@pytest.mark.parametrize(("preset", "wild"), [("openspiel", 6), ("joker", 1)])
def test_bid_order_is_the_peers_action_id_order(preset: str, wild: int) -> None:
    rules = Rules.preset(preset)
    assert rules.wild_face == wild and rules.single_round
    assert (rules.min_players, rules.max_players) == (2, 2)
    for n in (2, 4, 10):
        ids = [_peer_id(a) for a in legal_actions(rules, None, n)]
        assert ids == list(range(6 * n))
        for cur in (Bid(1, 3), Bid(2, 6), Bid(1, 1)):
            after = [a for a in legal_actions(rules, cur, n) if a is not CHALLENGE]
            assert [_peer_id(a) for a in after] == list(range(_peer_id(cur) + 1, 6 * n))


@pytest.mark.parametrize(("preset", "wild"), [("openspiel", 6), ("joker", 1)])
def test_wild_counts_for_every_face_and_exact_count_keeps_the_bid(preset: str, wild: int) -> None:
    rules = Rules.preset(preset)
    other = 3
    game = Game.create(rules, ["a", "b"], [1, 1])
    s = game.initial_state(0).deal([[wild], [other]])
    s = s.apply(Bid(2, other)).apply(CHALLENGE)
    assert s.winner == 0  # count 2 == quantity 2: the challenger loses
    s = game.initial_state(0).deal([[wild], [other]]).apply(Bid(2, wild)).apply(CHALLENGE)
    assert s.winner == 1  # a bid on the wild face counts that face only
    assert Rules.preset("openspiel").dice_per_player == 1


def test_random_rounds_agree_with_openspiel() -> None:
    import pyspiel  # the `openspiel` extra, part of `dev`: `make test` installs it

    rules = Rules.preset("openspiel")
    rng = random.Random(3)
    for numdice in (1, 2):
        ps_game = pyspiel.load_game("liars_dice", {"numdice": numdice})
        game = Game.create(rules, ["a", "b"], [numdice, numdice])
        for _ in range(200):
            hands = [[rng.randint(1, 6) for _ in range(numdice)] for _ in range(2)]
            ps = ps_game.new_initial_state()
            for f in hands[0] + hands[1]:
                ps.apply_action(f - 1)
            s = game.initial_state(0).deal(hands)
            while not s.is_over:
                acts = s.legal_actions()
                assert sorted(ps.legal_actions()) == sorted(
                    2 * numdice * 6 if a is CHALLENGE else _peer_id(a) for a in acts
                )
                a = rng.choice(acts)
                ps.apply_action(2 * numdice * 6 if a is CHALLENGE else _peer_id(a))
                s = s.apply(a)
            assert ps.is_terminal()
            assert ps.returns()[0] == (1.0 if s.winner == 0 else -1.0)
