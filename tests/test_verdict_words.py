"""The reveal's verdict comes from the engine's round result, never from a count
compared with the bid in the browser (issue 8, "The browser renders what the
server sends"): `engine.narration.verdict_sentence`, served as `verdict`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from liars_dice.engine import CALZA, CHALLENGE, Game, Rules
from liars_dice.engine.narration import verdict_sentence

JS = Path(__file__).resolve().parents[1] / "src" / "liars_dice" / "server" / "static" / "js"


def _result(preset: str, deal: list[list[int]], bid: str, end: object):  # type: ignore[no-untyped-def]
    rules = Rules.preset(preset)
    names = ["ann", "bob", "cy"][: len(deal)]
    game = Game.create(rules, names)
    st = game.initial_state().deal(deal).apply(rules.parse_bid(bid)).apply(end)
    return rules, names, st.results[-1]


def test_a_right_calza_wins_and_a_wrong_one_fails() -> None:
    """RULES.md `perudo`: a calza is right when the count is exactly the bid; the
    caller gains a die (not above the starting count), else loses one."""
    # three 3s: ann's 3, 3 and bob's 3 with the paco (1) wild = 4, so a calza on three 3s fails...
    rules, names, r = _result("perudo", [[2, 3, 3, 5, 6], [1, 3, 4, 4, 6], [2, 2, 2, 2, 2]], "three 3s", CALZA)
    assert (r.count, r.loser) == (4, 1)
    assert verdict_sentence(rules, names, r) == "Not exact: bob's calza fails."
    # ...and on four 3s is exactly right, at bob's starting count: no die comes back.
    rules, names, r = _result("perudo", [[2, 3, 3, 5, 6], [1, 3, 4, 4, 6], [2, 2, 2, 2, 2]], "four 3s", CALZA)
    assert (r.count, r.loser, r.gained) == (4, None, (0, 0, 0))
    assert verdict_sentence(rules, names, r) == (
        "Exactly right: bob's calza wins; bob is at the starting count, so gains no die."
    )
    # bob, down to 4 of his 5 dice after a wrong challenge, gains one back.
    st = Game.create(rules, names).initial_state().deal([[2, 2, 2, 2, 2], [3] * 5, [4] * 5])
    st = st.apply(rules.parse_bid("two 2s")).apply(CHALLENGE)
    assert st.dice == (5, 4, 5)
    st = st.deal([[2, 3, 3, 5, 6], [1, 3, 4, 4], [2, 2, 2, 2, 2]])
    for bid in ("two 3s", "three 3s", "four 3s"):  # bob opens, cy and ann raise
        st = st.apply(rules.parse_bid(bid))
    r = st.apply(CALZA).results[-1]
    assert (r.challenger, r.count, r.gained) == (1, 4, (0, 1, 0))
    assert verdict_sentence(rules, names, r) == "Exactly right: bob's calza wins."


def test_a_challenge_reads_true_lie_or_perfect() -> None:
    """Seed 004 (classic): a bid met by the count stands, the challenger loses;
    seed 000 (wild-stars): an exact count is a perfect bid."""
    rules, names, r = _result("classic", [[2, 3, 3, 5, 6], [1, 3, 4, 4, 6]], "four 3s", CHALLENGE)
    assert verdict_sentence(rules, names, r) == "The bid was true: bob was wrong."
    rules, names, r = _result("classic", [[2, 3, 3, 5, 6], [1, 3, 4, 4, 6]], "five 3s", CHALLENGE)
    assert verdict_sentence(rules, names, r) == "The bid was a lie: ann was caught."
    rules, names, r = _result("wild-stars", [[2, 3, 3, 5, 6], [1, 3, 4, 4, 6]], "four 3s", CHALLENGE)
    assert r.count == 4 and verdict_sentence(rules, names, r) == "A perfect bid! Exactly right."


def test_the_server_sends_the_verdict_with_every_result() -> None:
    pytest.importorskip("fastapi")
    from liars_dice.server.core.views import result_json

    rules, names, r = _result("perudo", [[2, 3, 3, 5, 6], [1, 3, 4, 4, 6], [2, 2, 2, 2, 2]], "three 3s", CALZA)
    assert result_json(r, tuple(names), rules)["verdict"] == verdict_sentence(rules, names, r)


def _code(text: str) -> str:
    """JS without its comments."""
    return re.sub(r"/\*.*?\*/|//[^\n]*", "", text, flags=re.S)


def test_the_reveal_compares_no_count_with_the_bid() -> None:
    code = _code((JS / "reveal.js").read_text())
    assert "result.verdict" in code
    assert not re.search(r"count\s*(>=|<=|===|!==|==|!=|<|>)|(>=|<=|===|!==|==|!=|<|>)\s*result\.count", code), (
        "reveal.js compares the count itself"
    )
    assert "quantity" not in re.sub(r"`[^`]*`", "", code), "the bid's quantity is only shown, never compared"


def test_the_page_words_no_rule_itself() -> None:
    """The rules summary and the option labels are the engine's (engine/summary.py),
    served by the server; no JS module holds a rule sentence or an option label."""
    from liars_dice.engine.summary import CHOICE_WORDS, OPTION_LABELS, rules_summary

    sentences = {s for p in ("wild-stars", "aces-wild", "classic", "perudo") for _, s in rules_summary(Rules.preset(p))}
    phrases = [*OPTION_LABELS.values(), *(w for d in CHOICE_WORDS.values() for w in d.values() if len(w) > 8),
               "are wild", "bidding track", "loses the difference", "Die Hard:", "Palifico:", "Calza:", *sentences]
    for path in JS.glob("*.js"):
        code = _code(path.read_text())
        found = [p for p in phrases if re.search(r"(?<![A-Za-z])" + re.escape(p), code)]
        assert not found, (path.name, found)


def test_the_terminal_count_gives_its_number_first_in_every_round() -> None:
    """A new user (stop 27) read "Count: one 4 against 3" in one round and
    "Count: 1 (no 6s and one 1) against 2" in the next: the count's number now
    always comes first, its words after it."""
    from liars_dice.cli.screen import count_breakdown
    from liars_dice.engine import Bid
    from liars_dice.engine.state import RoundResult

    classic = Rules.preset("classic")

    def result(bid: Bid, revealed: tuple[tuple[int, ...], ...], count: int, wilds: bool) -> RoundResult:
        return RoundResult(bid, 0, 1, count, wilds, (), revealed, (1, 0), (), 0, 0)

    assert count_breakdown(classic, result(Bid(3, 4), ((4, 2), (3, 5)), 1, False)) == "1 (one 4)"
    assert count_breakdown(classic, result(Bid(2, 6), ((2, 3), (5, 5)), 0, False)) == "0 (no 6s)"
    assert count_breakdown(classic, result(Bid(2, 6), ((1, 3), (5, 5)), 1, True)) == "1 (no 6s and one 1)"
    assert count_breakdown(classic, result(Bid(3, 5), ((5, 5), (5, 1)), 4, True)) == "4 (three 5s and one 1)"
