"""Between a protocol :class:`~liars_dice.protocol.messages.Request` and a
:class:`~liars_dice.engine.SeatView`.

:func:`view_from_request` rebuilds the view by replaying the request's public
moves through the engine's checked transitions, so every rule the engine
enforces (raises, turn order, shows) holds for a request too, and the view's
derived facts (whose turn, whether wilds count this round, the past rounds'
results) come from the engine rather than from the request. The other seats'
hidden dice, unknown to the asker, are stood in for by a fixed filler face;
nothing in the view depends on them.

:func:`request_from_view` is the inverse, for callers that send a view to an
external bot: ``view_from_request(parse(request_from_view(v))) == v``.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

from ..engine import Bid, Game, Hand, LiarsDiceError, Phase, Rules, SeatView, State
from ..records import rules_from_record
from .messages import MoveModel, ProtocolError, Request

#: The face that stands in for dice the asking seat cannot see.
_FILLER = 1


def rules_of(spec: str | dict[str, Any]) -> Rules:
    """The rules a request names: a preset name, or an object of options.

    :raises ProtocolError: for an unknown preset or option.
    """
    try:
        return rules_from_record(spec)
    except (LiarsDiceError, TypeError) as e:
        raise ProtocolError(getattr(e, "message", None) or f"The rules {spec!r} are not a preset or rule options.") from None


def rules_spec(rules: Rules) -> str | dict[str, Any]:
    """What a request's ``rules`` holds for ``rules``: the preset's name when
    it is one, else every option."""
    return rules.to_json()


def _minus(hand: list[int], sub: list[int]) -> list[int] | None:
    """``hand`` less the faces of ``sub`` (a multiset difference), or ``None`` when
    ``sub`` is not inside ``hand``. When ``hand`` ends with ``sub`` (as a reveal
    lists hidden dice, then shown ones) the rest keeps its order."""
    if not sub:
        return list(hand)
    if hand[-len(sub) :] == sub:
        return hand[: -len(sub)]
    rest = Counter(hand)
    rest.subtract(sub)
    if any(v < 0 for v in rest.values()):
        return None
    out = list(hand)
    for f in sub:
        out.remove(f)
    return out


def _play_round(
    rules: Rules,
    players: tuple[str, ...],
    counts: tuple[int, ...],
    moves: list[MoveModel],
    hidden: dict[int, list[int]],
    opener: int,
    where: str,
    start: tuple[int, ...] | None = None,
    palifico: bool = False,
) -> State:
    """Replay one round's public moves from a deal made up to fit them.

    Each seat's dealt faces are its shows, in order, then its last hidden dice:
    ``hidden[seat]`` where known, else filler. Each reroll after a show deals the
    seat's later shows and last hidden dice again, so the round ends with every
    seat holding exactly the shown and hidden dice the caller knows of.

    :raises ProtocolError: naming the first move that breaks a rule, or dice
        that do not add up.
    """
    names = players
    index = {p: i for i, p in enumerate(names)}
    shows: list[list[list[int]]] = [[] for _ in names]
    for m in moves:
        if m.player not in index:
            raise ProtocolError(f"{where}: {m.player!r} moves but is not a player.")
        if m.show:
            shows[index[m.player]].append(list(m.show))
    rests: list[list[int]] = []
    for s, name in enumerate(names):
        shown = sum(len(x) for x in shows[s])
        if s in hidden:
            rest = hidden[s]
        else:
            if shown > counts[s]:
                raise ProtocolError(f"{where}: {name} shows {shown} dice but holds only {counts[s]}.")
            rest = [_FILLER] * (counts[s] - shown)
        if shown + len(rest) != counts[s]:
            raise ProtocolError(
                f"{where}: {name} holds {counts[s]} dice, but {len(rest)} {'is' if len(rest) == 1 else 'are'} hidden"
                f" and {shown} shown."
            )
        rests.append(rest)
    if counts[opener] == 0:
        raise ProtocolError(f"{where}: {names[opener]} opens the round but has no dice.")
    deal = [sum(shows[s], []) + rests[s] for s in range(len(names))]
    try:
        game = Game.create(rules, names, start if start is not None else counts)
        state = game.position(counts, opener, palifico=palifico).deal(deal)
    except LiarsDiceError as e:
        raise ProtocolError(f"{where}: {e.message}") from None
    done = [0] * len(names)
    for i, m in enumerate(moves):
        if state.phase is not Phase.BID:
            raise ProtocolError(f"{where}, move {i}: the round already ended with a challenge.")
        seat = index[m.player]
        try:
            state = state.apply(m.action, tuple(m.show or ()), seat=seat)
            if m.show:
                done[seat] += 1
                state = state.reroll(tuple(sum(shows[seat][done[seat] :], []) + rests[seat]))
        except LiarsDiceError as e:
            raise ProtocolError(f"{where}, move {i}: {e.message}") from None
    return state


def models_from_request(request: Request, rules: Rules | None = None) -> dict[str, Any]:
    """The request's opponent models, by player name (``{}`` when it has none).

    :param rules: the rules played: a model fitted under others is refused.
    :returns: name to :class:`~liars_dice.bots.opponent_model.OpponentModel`.
    :raises ProtocolError: for a name that is not another player of the
        request, or a model its reader refuses (one sentence, naming the player).
    """
    if not request.models:
        return {}
    from ..bots.opponent_model import ModelError, OpponentModel

    out: dict[str, Any] = {}
    for name, data in request.models.items():
        if name not in request.players:
            raise ProtocolError(f"The request has a model of {name!r}, who is not one of its players.")
        if name == request.seat:
            raise ProtocolError(f"The request has a model of {name!r}, the seat to move; models are of opponents.")
        try:
            out[name] = OpponentModel.from_json(data)
            if rules is not None:
                out[name].check_rules(rules)
        except ModelError as e:
            raise ProtocolError(f"The model of {name!r} cannot be used: {e.message}") from None
    return out


def view_from_request(request: Request, rules: Rules | None = None) -> SeatView:
    """The :class:`SeatView` a request describes.

    :param rules: the rules the caller plays; a request for other rules is refused.
    :raises ProtocolError: when the request names rules other than ``rules``,
        unknown players, dice that do not add up (hand plus shown against the
        dice count, shown against the moves' shows), an illegal move, a round
        that already ended, a seat that is not to move, or a history that does
        not lead to this position. The message is one sentence.
    """
    got = rules_of(request.rules)
    if rules is not None and got != rules:
        raise ProtocolError(f"This bot plays {rules.name}, but the request is for {got.name}.")
    rules = got
    names = tuple(request.players)
    if len(set(names)) != len(names):
        raise ProtocolError("The request's players must have unique names.")
    index = {p: i for i, p in enumerate(names)}
    if request.seat not in index:
        raise ProtocolError(f"The request's seat {request.seat!r} is not one of its players.")
    seat = index[request.seat]
    for p in request.dice:
        if p not in index:
            raise ProtocolError(f"The request gives dice to {p!r}, who is not a player.")
    for p in names:
        if p not in request.dice:
            raise ProtocolError(f"The request gives no dice count for {p} (write 0 for a player who is out).")
    counts = tuple(request.dice[p] for p in names)
    if any(c < 0 for c in counts):
        raise ProtocolError("A dice count cannot be negative.")
    start: tuple[int, ...] | None = None
    if rules.calza:  # a right calza gains a die up to the starting count
        given = request.start_dice or {}
        for p in given:
            if p not in index:
                raise ProtocolError(f"The request gives a starting count to {p!r}, who is not a player.")
        start = tuple(given.get(p, rules.dice_per_player) for p in names)
    if request.palifico and not rules.palifico:
        raise ProtocolError(f"{rules.name} has no palifico rounds, but the request says this round is one.")
    if counts[seat] == 0:
        raise ProtocolError(f"{request.seat} is out of the game and never moves again.")
    if sum(1 for c in counts if c) < 2:
        raise ProtocolError("Only one player has dice, so the game is over and nobody moves.")
    results = []
    expected_opener: int | None = None
    prev_counts: tuple[int, ...] | None = None
    for r, past in enumerate(request.history):
        where = f"Past round {r}"
        for p in past.revealed:
            if p not in index:
                raise ProtocolError(f"{where} reveals dice of {p!r}, who is not a player.")
        if not (past.moves[-1].challenge or past.moves[-1].calza):
            raise ProtocolError(f"{where} does not end with a challenge.")
        if past.moves[0].player not in index:
            raise ProtocolError(f"{where}: {past.moves[0].player!r} moves but is not a player.")
        opener = index[past.moves[0].player]
        if expected_opener is not None and opener != expected_opener:
            raise ProtocolError(f"{where} opens with {names[opener]}, but {names[expected_opener]} should open it.")
        round_counts = tuple(len(past.revealed.get(p, ())) for p in names)
        hidden: dict[int, list[int]] = {}
        for s, p in enumerate(names):
            shown = [f for m in past.moves if m.player == p and m.show for f in m.show]
            rest = _minus(list(past.revealed.get(p, ())), shown)
            if rest is None:
                raise ProtocolError(f"{where}: {p} showed {shown}, which are not all among the dice revealed.")
            hidden[s] = rest
        if prev_counts is not None and round_counts != prev_counts:
            raise ProtocolError(f"{where} reveals dice counts that the round before does not leave.")
        if past.palifico and not rules.palifico:
            raise ProtocolError(f"{where} is a palifico round, but {rules.name} has none.")
        state = _play_round(
            rules, names, round_counts, list(past.moves), hidden, opener, where, start, bool(past.palifico)
        )
        result = state.results[-1]
        if state.is_over:
            raise ProtocolError(f"{where} ends the game, so no round can follow it.")
        results.append(result)
        prev_counts = state.dice
        expected_opener = result.next_opener
    if prev_counts is not None and counts != prev_counts:
        raise ProtocolError("The request's dice counts are not what the last past round leaves.")
    opener = index[request.moves[0].player] if request.moves and request.moves[0].player in index else seat
    if expected_opener is not None and opener != expected_opener:
        raise ProtocolError(f"This round opens with {names[opener]}, but {names[expected_opener]} should open it.")
    state = _play_round(
        rules, names, counts, list(request.moves), {seat: list(request.hand)}, opener, "This round", start,
        bool(request.palifico),
    )
    if state.phase is not Phase.BID:
        raise ProtocolError("This round already ended with a challenge, so nobody is to move.")
    if state.to_move != seat:
        assert state.to_move is not None  # a state in BID has a seat to move
        raise ProtocolError(f"It is {names[state.to_move]}'s turn, not {request.seat}'s.")
    if request.shown is not None:
        for p, faces in request.shown.items():
            if p not in index:
                raise ProtocolError(f"The request shows dice of {p!r}, who is not a player.")
        for s, p in enumerate(names):
            if sorted(request.shown.get(p, [])) != sorted(state.shown[s]):
                raise ProtocolError(
                    f"The request's shown dice of {p}, {sorted(request.shown.get(p, []))}, do not match "
                    f"the dice shown in its moves, {sorted(state.shown[s])}."
                )
    return replace(state.view(seat), results=tuple(results))


def _move_json(seat: int, bid: Bid, show: Hand, names: tuple[str, ...]) -> dict[str, Any]:
    out: dict[str, Any] = {"player": names[seat], "bid": bid.to_json()}
    if show:
        out["show"] = list(show)
    return out


def request_from_view(view: SeatView) -> dict[str, Any]:
    """The request (JSON-ready) that describes ``view``: the seat to move, with
    the history of every past round the view holds.

    :raises ProtocolError: when it is not the view's seat's turn.
    """
    if not view.my_turn:
        raise ProtocolError("A request is made only for the seat to move.")
    names = view.players
    history = []
    for r in view.results:
        moves = [_move_json(s, b, sh, names) for s, b, sh in r.bids]
        moves.append({"player": names[r.challenger], "calza" if r.calza else "challenge": True})
        past: dict[str, Any] = {"moves": moves, "revealed": {names[s]: list(h) for s, h in enumerate(r.revealed) if h}}
        if r.palifico:
            past["palifico"] = True
        history.append(past)
    extra: dict[str, Any] = {}
    if view.rules.calza and view.start_dice:
        extra["start_dice"] = {names[s]: d for s, d in enumerate(view.start_dice)}
    if view.palifico:
        extra["palifico"] = True
    return {
        "rules": rules_spec(view.rules),
        "players": list(names),
        "seat": names[view.seat],
        "dice": {names[s]: d for s, d in enumerate(view.dice)},
        "hand": list(view.hand),
        "shown": {names[s]: list(h) for s, h in enumerate(view.shown) if h},
        "moves": [_move_json(s, b, sh, names) for s, b, sh in view.bids],
        "history": history,
        **extra,
    }

