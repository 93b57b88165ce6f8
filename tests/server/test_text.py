"""The text rules, the JSON depth scan, the Origin check and ``--limit``:
examples and properties (issue 7, "Text")."""

from __future__ import annotations

import json
import random
import string
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from liars_dice.server.core.config import Settings
from liars_dice.server.core.errors import ChatInvalid, NameInvalid
from liars_dice.server.edge.headers import origin_allowed
from liars_dice.server.core.text import (
    REFUSED_CATEGORIES, _spoof_checker, clean_text, confusable_with, json_depth_exceeds, skeleton,
)

every_char = st.characters(exclude_categories=())


@given(st.text(every_char, max_size=40))
@settings(max_examples=500)
def test_clean_text_returns_nfc_visible_text_or_refuses(raw: str) -> None:
    try:
        out = clean_text(raw, "A chat line", 300, error=ChatInvalid)
    except ChatInvalid as e:
        assert e.message.endswith(".") and raw not in e.message or not raw.strip()
        return
    assert out == unicodedata.normalize("NFC", out) and out == out.strip() and out
    assert not any(unicodedata.category(c) in REFUSED_CATEGORIES for c in out)
    out.encode("utf-8")  # never a lone surrogate
    assert clean_text(out, "A chat line", 300) == out  # idempotent


@pytest.mark.parametrize("raw", ["a\ud800", "\u202eabc", "x\u200by", "\x07", "\U000e0001", "\ue000", "a" + "\u0301" * 6])
def test_refused_strings(raw: str) -> None:
    with pytest.raises(NameInvalid) as e:
        clean_text(raw, "A nickname", 24, error=NameInvalid)
    assert e.value.code == "name/invalid" and e.value.message.startswith("A nickname")


def test_nfc_and_white_space() -> None:
    assert clean_text("  Rene\u0301 \t  Dupont ", "A nickname", 24) == "Ren\u00e9 Dupont"


@pytest.mark.parametrize(("a", "b"), [
    ("José", "Jose\u0301"), ("José", "J\u043esé"), ("Bob", "BOB"), ("paypal", "\u0440aypal"),
    # capitals that look alike only before folding (the new user's find: "Маrta" beside an account "Marta")
    ("Marta", "\u041c\u0430rta"), ("Bob", "\u0412\u043eb"), ("Kate", "\u041aate"), ("Tom", "\u0422\u043em"), ("Hugo", "\u041dugo"),
])
def test_look_alikes_share_a_skeleton(a: str, b: str) -> None:
    assert skeleton(clean_text(a, "n", 24)) == skeleton(clean_text(b, "n", 24))
    assert confusable_with(b, ["x", a]) == a


def test_different_names_differ() -> None:
    assert confusable_with("Ann", ["Anna", "Bob", None]) is None


@given(st.recursive(st.none() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                    max_leaves=20))
def test_depth_scan_agrees_with_the_parsed_depth(value: object) -> None:
    def depth(v: object) -> int:
        if isinstance(v, list):
            return 1 + max((depth(x) for x in v), default=0)
        if isinstance(v, dict):
            return 1 + max((depth(x) for x in v.values()), default=0)
        return 0

    text = json.dumps(value)
    for limit in range(0, 6):
        assert json_depth_exceeds(text, limit) == (depth(value) > limit)


def test_depth_scan_ignores_brackets_in_strings() -> None:
    assert not json_depth_exceeds(json.dumps({"text": "[[[[[[[[[[{{{{{{{{\\\"[[["}), 2)
    assert json_depth_exceeds("[" * 100_000, 8)


def test_origin_check() -> None:
    s = Settings()
    assert origin_allowed(None, "example.org", s)
    assert origin_allowed("http://example.org:8000", "example.org:8000", s)
    assert not origin_allowed("http://evil.example", "example.org:8000", s)
    assert not origin_allowed("null", "example.org", s)
    p = Settings(public_url="https://dice.example/")
    assert origin_allowed("https://dice.example", "127.0.0.1:8000", p)
    a = Settings(allowed_origins=("https://friends.example",))
    assert origin_allowed("https://friends.example/", "x", a) and not origin_allowed("http://x", "x", a)


def test_limit_overrides() -> None:
    s = Settings().with_overrides(["create_rate=5/minute", "sockets-per-seat=2", "wal_truncate_seconds=1.5"])
    assert (s.create_rate, s.sockets_per_seat, s.wal_truncate_seconds) == ("5/minute", 2, 1.5)
    # attack2: a rate limits cannot read was a traceback at start-up; negative and NaN numbers were taken
    for bad in (["nope=1"], ["sockets_per_seat=many"], ["create_rate"], ["message_rate=garbage"], ["body_bytes=-5"],
                ["grace=nan"], ["hello_timeout=inf"], ["request_seconds=-1"]):
        with pytest.raises(ValueError, match=bad[0].split("=")[0].replace("-", "_")):
            Settings().with_overrides(bad)


# Issue 38, fault 1: the skeleton was taken before case folding, so a capital "I"
# became an "l" and "KIMMY155" passed beside "Kimmy155" (and "MILA" beside "mila").
LATIN = string.ascii_letters + string.digits + " ÀÁÂÄÅÆÇÈÉÊËÌÍÎÏÑÒÓÔÖØÙÚÛÜÝàáâäåæçèéêëìíîïñòóôöøùúûüýÿŁłŒœŠšŽžİı-'."
latin_names = st.text(st.sampled_from(LATIN), min_size=1, max_size=24)
#: Capitals of other scripts drawn as a Latin capital (ICU's prototype), e.g. Cyrillic "М" -> "M".
DRAWN_AS = {
    ch: str(_spoof_checker().getSkeleton(0, ch)) for ch in map(chr, range(0x370, 0x530))
    if ch.isupper() and len(str(_spoof_checker().getSkeleton(0, ch))) == 1
    and str(_spoof_checker().getSkeleton(0, ch)) in string.ascii_uppercase
}
LOOKS_LIKE: dict[str, list[str]] = {}
for _other, _latin in DRAWN_AS.items():
    LOOKS_LIKE.setdefault(_latin, []).append(_other)


@given(latin_names, st.randoms(use_true_random=False))
@settings(max_examples=1000)
def test_case_never_tells_two_names_apart(name: str, rnd: random.Random) -> None:
    mixed = "".join(ch.swapcase() if rnd.random() < 0.5 else ch for ch in name)
    for variant in (name.upper(), name.lower(), name.casefold(), name.swapcase(), name.title(), mixed):
        assert skeleton(variant) == skeleton(name), (name, variant)


@given(latin_names, st.randoms(use_true_random=False))
@settings(max_examples=500)
def test_capitals_of_other_scripts_drawn_as_latin_ones_clash(name: str, rnd: random.Random) -> None:
    upper = name.upper()
    disguised = "".join(rnd.choice(LOOKS_LIKE[ch]) if ch in LOOKS_LIKE and rnd.random() < 0.5 else ch for ch in upper)
    assert skeleton(disguised) == skeleton(name), (name, disguised)


def test_the_disguises_are_many() -> None:
    assert len(DRAWN_AS) >= 20 and {"\u041c", "\u0391", "\u0410"} <= DRAWN_AS.keys()


@pytest.mark.parametrize(("a", "b"), [("KIMMY155", "Kimmy155"), ("MILANA7", "Milana7"), ("MILA", "mila")])
def test_upper_case_look_alikes_clash(a: str, b: str) -> None:
    assert skeleton(a) == skeleton(b)
