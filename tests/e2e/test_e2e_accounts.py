"""End-to-end (issue 18): an account in a real Chromium. Sign up (the
recovery code is shown once), create a table signed in (the seat is marked
registered), sign in on a second browser context and take the same seat
there, play the game to the end, and sign out."""

from __future__ import annotations

import pytest

from e2e_ui import add_bots_and_start, create_table, play_until_over, shot

pytestmark = [pytest.mark.browser, pytest.mark.timeout(240)]

PASSWORD = "a long and uncommon secret"


def test_sign_up_sign_in_elsewhere_play_and_sign_out(server, new_page) -> None:
    laptop, phone = new_page(), new_page(phone=True)

    laptop.goto(server.url + "/#/account")
    laptop.fill("#signup-name", "Quinn")
    laptop.fill("#signup-password", "short")
    laptop.click("#signup-form-submit")
    assert "at least 10 characters" in laptop.wait_for_selector("#signup-form-note.form-error").inner_text()
    laptop.fill("#signup-password", PASSWORD)
    laptop.click("#signup-form-submit")
    code_text = laptop.wait_for_selector("#recovery-code").inner_text().strip()
    assert len(code_text) == 24 and code_text.count("-") == 4
    assert laptop.inner_text("#account-link").strip().endswith("Quinn")
    assert laptop.evaluate("document.cookie") == ""  # the session cookie is HttpOnly: no script reads it
    shot(laptop, "account-signed-up")

    code = create_table(laptop, server.url, "Quinn", preset="classic", seats=2, dice=2)
    mine = laptop.wait_for_selector(".seat-mine")
    assert "registered" in mine.inner_text()

    # a second device: sign in, open the table, and the account's seat is there
    phone.goto(server.url + "/#/account")
    phone.fill("#signin-name", "quinn")  # a name differs by how it looks, not by case
    phone.fill("#signin-password", "not the password")
    phone.click("#signin-form-submit")
    assert "do not go together" in phone.wait_for_selector("#signin-form-note.form-error").inner_text()
    phone.fill("#signin-password", PASSWORD)
    phone.click("#signin-form-submit")
    phone.wait_for_selector("#signed-in-as")
    phone.goto(server.url + f"/#/table/{code}")
    seat = phone.wait_for_selector(".seat-mine")
    assert "Quinn" in seat.inner_text() and "registered" in seat.inner_text()

    add_bots_and_start(phone)
    stats = play_until_over([phone])
    assert stats["moves"] >= 1
    phone.wait_for_selector("#game-over")
    shot(phone, "account-game-over")

    phone.goto(server.url + "/#/account")
    phone.click("#sign-out")
    phone.wait_for_selector("#signin-form")
    assert phone.inner_text("#account-link").strip() == "Sign in"
    assert server.api("/api/account")["account"] is None  # (a cookieless client, for the shape)
    # the laptop's session is its own: still signed in
    laptop.goto(server.url + "/#/account")
    laptop.wait_for_selector("#signed-in-as")
