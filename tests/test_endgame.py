"""Whole-game equilibrium tables for two players and their lookup (issue 3, section 3)."""

from __future__ import annotations

import os

import pytest

from liars_dice.engine import CHALLENGE, SEED_PRESETS, Bid, Game, Rules
from liars_dice.solver import solve
from liars_dice.solver.endgame import endgame_policy, positions, solve_tables, tables_for

from endgame_helpers import whole_game_values


@pytest.mark.parametrize("preset", SEED_PRESETS)
def test_tables_are_packaged_for_every_seed_preset(preset: str) -> None:
    tables = tables_for(Rules.preset(preset))
    assert tables is not None
    assert set(positions(3)) <= set(tables.values)
    assert all(-1.0 <= v <= 1.0 for v in tables.values.values())
    assert all(e <= 0.01 for e in tables.exploitability.values())


def test_one_die_each_is_a_single_round() -> None:
    # With one die each every challenge ends the game, so V(1, 1) is the round's value.
    tables = tables_for(Rules.preset("classic"))
    assert tables is not None
    single = solve("classic", (1, 1), target_exploitability=1e-3)
    assert tables.values[(1, 1)] == pytest.approx(single.value, abs=4 * (1e-3 + tables.exploitability[(1, 1)]))


@pytest.mark.parametrize("preset", SEED_PRESETS)
def test_backward_induction_matches_an_engine_walk_of_the_whole_game(preset: str) -> None:
    # Independent check of the round payoffs (losses, Die Hard, perfect bid, who
    # opens next: seeds 000/003/004, RULES.md): play the solved policies through
    # the engine over every deal and history, game to the end, and compare the
    # exact expectation with each table value. Three-faced dice keep it small.
    rules = Rules.preset(preset).with_options(faces=3)
    entries = {e.dice: e for e in solve_tables(rules, max_total=3, target_exploitability=0.02)}
    value = whole_game_values(rules, {d: e.result.policy for d, e in entries.items()})
    for (a, b), e in entries.items():
        assert value(a, b) == pytest.approx(e.value, abs=1e-9)


def _two_left(rules: Rules, opener: int, hands: dict[int, list[int]]):
    dice = [len(hands.get(s, [])) for s in range(4)]
    game = Game.create(rules, ["a", "b", "c", "d"], dice)
    return game.initial_state(opener).deal([hands.get(s, []) for s in range(4)])


@pytest.mark.parametrize("preset", SEED_PRESETS)
def test_endgame_policy_gives_a_distribution_over_legal_actions(preset: str) -> None:
    rules = Rules.preset(preset)
    for opener, other in ((1, 3), (3, 1)):
        state = _two_left(rules, opener, {opener: [2, 5], other: [1]})
        for _ in range(2):
            view = state.view(state.to_move)
            probs = endgame_policy(view)
            assert probs is not None
            assert set(probs) <= set(view.legal_actions())
            assert sum(probs.values()) == pytest.approx(1.0)
            state = state.apply_unchecked(max(probs, key=lambda a: (a is not CHALLENGE, probs[a])))
            if state.phase.value != "bid":
                break


def test_endgame_policy_declines_where_no_table_applies() -> None:
    classic = Rules.preset("classic")
    three = _two_left(classic, 0, {0: [2], 1: [3], 2: [4]})
    assert endgame_policy(three.view(0)) is None  # three players with dice
    big = Game.create(classic, ["a", "b"], [5, 5]).initial_state(0).deal([[1, 2, 3, 4, 5], [6, 6, 6, 6, 6]])
    assert endgame_policy(big.view(0)) is None  # dice out of the tables' range
    small = _two_left(classic, 0, {0: [2], 1: [3]})
    assert endgame_policy(small.view(1)) is None  # not this seat's turn
    # A rule set nobody ships tables for (joker itself has a 1 vs 1 table for the strong bot).
    odd = Rules.preset("joker").with_options(faces=5)
    joker = Game.create(odd, ["a", "b"], [1, 1]).initial_state(0).deal([[2], [3]])
    assert endgame_policy(joker.view(0)) is None  # no tables for this rule set
    stars = Rules.preset("wild-stars")
    shown = Game.create(stars, ["a", "b"], [2, 2]).initial_state(0).deal([[2, 2], [5, 3]])
    shown = shown.apply(Bid(1, 2), show=[2]).reroll([4])
    # dice were shown where the tables hold no-show play (4 dice in play; 3 hold shows: test_endgame_shows.py)
    assert endgame_policy(shown.view(1)) is None


@pytest.mark.parametrize("preset", ["classic", "aces-wild", "wild-stars", "joker"])
def test_the_packaged_tables_are_found(preset: str) -> None:
    """Each packaged tables file is found for its preset, also after Rules gained
    options the file predates (perudo's wild_opening, calza, palifico: their
    defaults); a stricter key silently turned the strong bot's endgames off."""
    from liars_dice.solver.endgame import tables_for

    assert tables_for(Rules.preset(preset)) is not None
    assert tables_for(Rules.preset(preset).with_options(faces=5)) is None


@pytest.mark.parametrize("preset", ["classic", "wild-stars"])
def test_the_bid_cap_of_a_capped_position_is_left_to_the_search(preset: str) -> None:
    # The 4-dice positions are solved with at most 6 bids per history; at the
    # cap the capped tree forces a challenge, which is the abstraction's move,
    # not equilibrium play: the tables decline there (docs/solver.md "Capped
    # histories for 4 dice in play") and the bot's own search decides. Take a
    # stored node at the cap (one equilibrium play reaches) so only the cap can
    # be why the tables decline; one bid earlier they answer.
    from liars_dice.solver.endgame import endgame_moves

    rules = Rules.preset(preset)
    tables = tables_for(rules)
    assert tables is not None
    pos = tables.position((2, 2))
    assert pos is not None
    tree = pos.tree
    cap = tree.max_depth
    assert cap < tree.n_bids
    row = int(pos.nodes[cap][0])
    mask = int(tree.depths[cap].masks[row])
    history = [b for j, b in enumerate(tree.bids) if mask >> j & 1]
    assert len(history) == cap
    hands = {0: [1, 2], 1: [3, 4]}
    for made, declines in ((cap - 1, False), (cap, True)):
        state = _two_left(rules, 0, hands)
        for bid in history[:made]:
            state = state.apply(bid)
        view = state.view(state.to_move)
        got = endgame_moves(view)
        if declines:
            assert got is None
        else:
            assert got is not None and sum(got.values()) == pytest.approx(1.0)


def test_a_smaller_build_refuses_to_drop_the_files_larger_positions(tmp_path) -> None:
    """Bad input loses nothing: `solve --tables --max-total 2` over the shipped
    classic tables (positions of up to 4 dice) once rewrote the file with the
    1 vs 1 position alone. It is refused, and the file is unchanged."""
    from importlib import resources

    from liars_dice.solver import SolverError
    from liars_dice.solver.endgame import build_tables_file, read_entries

    rules = Rules.preset("classic")
    shipped = resources.files("liars_dice") / "data" / "endgame-classic.npz"
    path = tmp_path / "endgame-classic.npz"
    path.write_bytes(shipped.read_bytes())
    before = path.read_bytes()
    assert max(sum(p) for p in read_entries(path, rules)) > 2
    with pytest.raises(SolverError, match="would drop"):
        build_tables_file(rules, path, max_total=2, report=lambda s: None)
    assert path.read_bytes() == before


def _one_sentence_and_unchanged(build, path, match: str) -> None:
    from liars_dice.solver import SolverError

    before = path.read_bytes() if path.is_file() else None
    with pytest.raises(SolverError, match=match) as e:
        build()
    assert "\n" not in str(e.value) and "pickle" not in str(e.value) and ".." not in str(e.value)
    if before is not None:
        assert path.read_bytes() == before


def test_a_tables_file_of_other_rules_is_not_overwritten(tmp_path) -> None:
    """Bad input loses nothing (attack5): `solve --tables --rules aces-wild --out
    endgame-classic.npz` read the classic file as "nothing to reuse" and replaced
    it with aces-wild's tables. It is refused in one sentence (``--fresh`` replaces)."""
    from liars_dice.solver.endgame import EndgameTables, build_tables_file

    path = tmp_path / "endgame-classic.npz"
    build_tables_file(Rules.preset("classic"), path, max_total=2, report=lambda s: None)
    aces = Rules.preset("aces-wild")
    _one_sentence_and_unchanged(
        lambda: build_tables_file(aces, path, max_total=2, report=lambda s: None), path, "other rules.*--fresh"
    )
    build_tables_file(aces, path, max_total=2, report=lambda s: None, reuse=False)  # --fresh: asked for
    from liars_dice.solver.endgame import round_key

    assert EndgameTables.load(path).key == round_key(aces)


def test_a_truncated_or_foreign_tables_file_gets_one_sentence_and_is_kept(tmp_path) -> None:
    """A truncated tables file (a build killed while writing, a short copy) gave a
    ``BadZipFile`` traceback (attack5); it and other files that are not tables
    get one sentence, and stay as they were."""
    from liars_dice.solver.endgame import EndgameTables, build_tables_file

    rules = Rules.preset("classic")
    good = tmp_path / "good.npz"
    build_tables_file(rules, good, max_total=2, report=lambda s: None)
    for name, data in (("short.npz", good.read_bytes()[:3000]), ("empty.npz", b""), ("text.npz", b"hello\n")):
        path = tmp_path / name
        path.write_bytes(data)
        _one_sentence_and_unchanged(lambda: EndgameTables.load(path), path, "not a readable endgame tables file")
        for reuse in (True, False):  # --fresh replaces tables, never another file (a mistyped --out game.json)
            _one_sentence_and_unchanged(
                lambda: build_tables_file(rules, path, max_total=2, report=lambda s: None, reuse=reuse), path,
                "not a readable endgame tables file",
            )


def test_an_out_path_that_cannot_be_written_is_refused_before_solving(tmp_path) -> None:
    """A bad --out (a missing directory, a directory) was found only when the
    solved tables were written, with a traceback after the whole build (attack5);
    it is refused first, in one sentence."""
    from liars_dice.solver.endgame import build_tables_file

    rules = Rules.preset("classic")
    reported: list[str] = []
    (tmp_path / "adir").mkdir()
    for path, match in ((tmp_path / "nodir" / "t.npz", "no directory"), (tmp_path / "adir", "is a directory")):
        _one_sentence_and_unchanged(
            lambda: build_tables_file(rules, path, max_total=2, report=reported.append, reuse=False), path, match
        )
    assert reported == []  # nothing was solved


def test_tables_are_written_where_asked_and_whole(tmp_path, monkeypatch) -> None:
    """The file is written at the path given (``--out t.bin`` wrote ``t.bin.npz``
    and reported ``t.bin``; attack5), and by a rename: a write that fails half-way
    leaves the earlier file whole and no partial file behind."""
    from liars_dice.solver import endgame
    from liars_dice.solver.endgame import EndgameTables, build_tables_file

    rules = Rules.preset("classic")
    path = tmp_path / "t.bin"
    build_tables_file(rules, path, max_total=2, report=lambda s: None)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.bin"]
    assert EndgameTables.load(path).values.keys() == {(1, 1)}
    mask = os.umask(0)
    os.umask(mask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~mask  # readable as a file open() writes, not mkstemp's 0600
    before = path.read_bytes()

    def broken(file, **arrays):
        file.write(b"PK\x03\x04 half")
        raise OSError("disk full")

    monkeypatch.setattr(endgame.np, "savez_compressed", broken)
    with pytest.raises(OSError, match="disk full"):
        build_tables_file(rules, path, max_total=2, report=lambda s: None, reuse=False)
    assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.bin"]


def test_an_out_path_through_a_symbolic_link_keeps_the_link(tmp_path) -> None:
    """attack5 leftover: the rename that makes the write atomic replaced a
    symbolic link given as --out with a plain file; the file the link points to
    is written, the link kept."""
    from liars_dice.solver.endgame import EndgameTables, build_tables_file

    rules = Rules.preset("classic")
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "t.npz"
    build_tables_file(rules, target, max_total=2, report=lambda s: None)
    link = tmp_path / "link.npz"
    link.symlink_to(target)
    build_tables_file(rules, link, max_total=2, report=lambda s: None, reuse=False)
    assert link.is_symlink() and link.resolve() == target.resolve()
    assert EndgameTables.load(link).values.keys() == {(1, 1)}
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["t.npz"]
    dangling = tmp_path / "dangling.npz"
    dangling.symlink_to(tmp_path / "nodir" / "t.npz")
    _one_sentence_and_unchanged(
        lambda: build_tables_file(rules, dangling, max_total=2, report=lambda s: None, reuse=False), dangling, "no directory"
    )
