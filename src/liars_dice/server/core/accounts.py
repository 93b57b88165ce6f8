"""Accounts' pure policy (issue 18): what a password must be, what a
registered name may be, and the words shown for a deleted player.

Nothing here touches a database or a socket; the store's side is
:mod:`liars_dice.server.runtime.accounts`, the HTTP side
:mod:`liars_dice.server.edge.accounts_api`.

* A password has at least :data:`PASSWORD_MIN` characters (code points after
  NFC), at most :data:`PASSWORD_MAX`, is not one of the 10,000 most common
  passwords (``liars_dice/data/common-passwords-10k.txt``, SecLists'
  ``Passwords/Common-Credentials/10k-most-common.txt``, compared case-folded),
  and is hard enough to guess: Dropbox's ``zxcvbn`` estimator (the PyPI
  package ``zxcvbn``, a port of Wheeler's "zxcvbn: Low-Budget Password Strength
  Estimation", USENIX Security 2016), with the account's name counted as a
  guess, scores it at least :data:`PASSWORD_SCORE` (issue 38: only 51 of the
  10,000 common passwords have 10 or more characters, so the list alone let
  ten spaces and ``password123`` in). There are no composition rules (NIST SP
  800-63B, section 5.1.1.2, which asks for a check against known-bad values).
* A registered name follows the nickname rules (:func:`~.text.clean_text`), and
  its confusable skeleton (:func:`~.text.skeleton`) is what is unique: no
  second account, and no guest, may take a name that looks like it.
* Names that read "deleted player N" are kept for deleted accounts: nobody
  may take one.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import re
import secrets
import unicodedata
from typing import Any
from importlib import resources

from .errors import NameInvalid
from .text import skeleton
from .errors import (  # the one error tree; named here too (re-exported), where the account rules raise them
    AccountBusy as AccountBusy,
    CsrfRefused as CsrfRefused,
    NameRegistered as NameRegistered,
    PasswordInvalid as PasswordInvalid,
    RecoveryFailed as RecoveryFailed,
    ServerBusy,
    SignedOut as SignedOut,
    SignInFailed as SignInFailed,
)

#: Too many password checks waiting already (``hash_waiting_max``): the server's busy refusal.
HashingBusy = ServerBusy

#: Shortest password, in characters.
PASSWORD_MIN = 10
#: Longest password, in characters (Argon2 takes any length; this bounds the work).
PASSWORD_MAX = 256
#: The least ``zxcvbn`` score a password needs: 3 is "safely unguessable:
#: moderate protection from an offline slow-hash scenario" (under 10**10 guesses
#: is 2 or less), which Argon2id hashes are.
PASSWORD_SCORE = 3
#: ``zxcvbn`` judges at most this many characters (its own bound: its matching
#: grows faster than the length); a longer password is judged by its start.
PASSWORD_JUDGED = 72
#: Where the common passwords are (package data).
COMMON_PASSWORDS = "common-passwords-10k.txt"
#: Longest skeleton stored (``accounts.skeleton`` is ``String(128)``).
SKELETON_MAX = 128
#: A session's lifetime, seconds (30 days), documented in docs/server-protocol.md.
SESSION_SECONDS = 30 * 24 * 3600
#: The session cookie's name.
SESSION_COOKIE = "ld_session"
#: The header that carries the CSRF token.
CSRF_HEADER = "x-csrf-token"

_DELETED = re.compile(r"deleted player \d+")


@functools.lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    """The common passwords, case-folded (loaded once from the package data)."""
    text = resources.files("liars_dice").joinpath("data", COMMON_PASSWORDS).read_text("utf-8")
    return frozenset(line.strip().casefold() for line in text.splitlines() if line.strip())


def check_password(password: str, name: str = "") -> str:
    """``password`` as it is hashed (NFC), if it follows the rules.

    :param name: the account's name: a password made of it is easy to guess.
    :raises PasswordInvalid: under :data:`PASSWORD_MIN` or over
        :data:`PASSWORD_MAX` characters, one of the common passwords, or scored
        under :data:`PASSWORD_SCORE` by ``zxcvbn``; the sentence says what makes
        it weak and what would make it better, and never repeats the password.
        Costs up to about 0.15 s of CPU (``zxcvbn`` on 72 characters): call it
        off the event loop.
    """
    if not isinstance(password, str):
        raise PasswordInvalid("A password must be text.")
    try:
        password.encode("utf-8")
    except UnicodeEncodeError:
        raise PasswordInvalid("A password must be valid Unicode (it holds a lone surrogate).") from None
    pw = unicodedata.normalize("NFC", password)
    if len(pw) < PASSWORD_MIN:
        raise PasswordInvalid(f"A password needs at least {PASSWORD_MIN} characters.")
    if len(pw) > PASSWORD_MAX:
        raise PasswordInvalid(f"A password may have at most {PASSWORD_MAX} characters.")
    if pw.casefold() in common_passwords():
        raise PasswordInvalid("That password is one of the 10,000 most common passwords: choose another.")
    problem = password_weakness(pw, name)
    if problem is not None:
        raise PasswordInvalid(problem)
    return pw


def password_weakness(password: str, name: str = "") -> str | None:
    """Why ``password`` is too easy to guess, as one sentence with what would
    make it better, or ``None`` when ``zxcvbn`` scores it at least
    :data:`PASSWORD_SCORE` (``name`` counted as a guess)."""
    from zxcvbn import zxcvbn

    inputs = [name] + name.split() if name else []
    got = zxcvbn(password[:PASSWORD_JUDGED], user_inputs=inputs, max_length=PASSWORD_JUDGED)
    if got["score"] >= PASSWORD_SCORE:
        return None
    feedback = got["feedback"]
    warning = str(feedback.get("warning") or "").rstrip(".")
    if name and any(m.get("dictionary_name") == "user_inputs" for m in got["sequence"]):
        warning = "It is built from your name"
    tips = [str(t).rstrip(".").replace(". ", ", ") for t in feedback.get("suggestions") or []]
    tip = "; ".join(t[0].lower() + t[1:] for t in tips if t) or "add another word or two, uncommon words are better"
    why = f" ({warning[0].lower()}{warning[1:]})" if warning else ""
    return f"That password is too easy to guess{why}: {tip}."


def normal_password(password: str) -> str:
    """``password`` as it was hashed at sign-up (NFC), for a sign-in (no rules checked)."""
    return unicodedata.normalize("NFC", password) if isinstance(password, str) else ""


def is_deleted_name(name: str) -> bool:
    """Whether ``name`` reads like "deleted player N" (kept for deleted accounts)."""
    return _DELETED.fullmatch(" ".join(skeleton(name).split())) is not None or \
        _DELETED.fullmatch(" ".join(name.casefold().split())) is not None


def deleted_name(number: int) -> str:
    """What a deleted account's past games show for it: ``"deleted player N"``."""
    return f"deleted player {number}"


def name_skeleton(name: str) -> str:
    """The skeleton that makes ``name`` (cleaned) unique among accounts.

    :raises NameInvalid: a name kept for deleted players, or whose skeleton is too long.
    """
    if is_deleted_name(name):
        raise NameInvalid("Names such as \"deleted player 1\" are kept for deleted accounts: choose another.")
    sk = skeleton(name)
    if len(sk) > SKELETON_MAX:
        raise NameInvalid("That name is too long once its look-alike letters are counted: choose a shorter one.")
    return sk


def new_recovery_code() -> str:
    """A one-time recovery code: 20 characters of base32 (100 bits), in groups of
    four ("ABCD-EFGH-..."), easy to write down."""
    raw = "".join(secrets.choice("ABCDEFGHJKMNPQRSTUVWXYZ23456789") for _ in range(20))
    return "-".join(raw[i:i + 4] for i in range(0, 20, 4))


def normal_recovery_code(code: str) -> str:
    """A recovery code as typed, made comparable: upper-case, no dashes or spaces."""
    return "".join(ch for ch in code.upper() if ch.isalnum()) if isinstance(code, str) else ""


def csrf_token(session_token: str) -> str:
    """The CSRF token of a session: HMAC-SHA256 of ``"csrf"`` keyed with the
    session's token, hex (64 characters). The page reads it from the sign-in
    answer (or ``GET /api/account``) and sends it in ``X-CSRF-Token``; a page of
    another site can neither read the HttpOnly session cookie nor this value,
    and the value does not tell the session token."""
    return hmac.new(session_token.encode("utf-8"), b"csrf", hashlib.sha256).hexdigest()


def csrf_matches(session_token: str, given: str | None) -> bool:
    """Whether ``given`` is the session's :func:`csrf_token` (compared in constant time)."""
    return given is not None and hmac.compare_digest(csrf_token(session_token), given)


def accounts_in(rows: "list[tuple[int, str, dict[str, Any]]]") -> set[int]:
    """The account ids that took seats in a table's stored events ``rows`` (``(seq, kind, payload)``)."""
    return {p["account"] for _, kind, p in rows if kind == "joined" and isinstance(p.get("account"), int)}


def rename_players(
    rows: "list[tuple[int, str, dict[str, Any]]]", names: "dict[int, str]",
) -> "list[tuple[int, str, dict[str, Any]]]":
    """A table's stored events with the names of deleted accounts replaced, as
    every view shows them (records, replays, summaries): ``names`` maps an
    account id to its new name ("deleted player N"). The name is replaced
    wherever the events carry it (``joined``, ``started`` and ``new_game``
    players, ``chat``, ``finished`` winner). Names at one table differ by how
    they look, so each old name stands for one seat; the dice depend on seats
    and seeds only, so a renamed record still verifies (``liars-dice verify``).
    The stored rows are not changed (a new list of new payloads)."""
    if not names:
        return rows
    old_to_new: dict[str, str] = {}
    for _, kind, p in rows:
        if kind == "joined" and p.get("account") in names:
            old_to_new[p["name"]] = names[p["account"]]
    if not old_to_new:
        return rows

    def sub(v: Any) -> Any:
        return old_to_new.get(v, v) if isinstance(v, str) else v

    out: list[tuple[int, str, dict[str, Any]]] = []
    for seq, kind, p in rows:
        q = dict(p)
        if kind in ("joined", "chat") and "name" in q:
            q["name"] = sub(q["name"])
        elif kind in ("started", "new_game") and isinstance(q.get("players"), list):
            q["players"] = [sub(n) for n in q["players"]]
        elif kind == "finished" and "winner" in q:
            q["winner"] = sub(q["winner"])
        out.append((seq, kind, q))
    return out
