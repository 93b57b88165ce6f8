"""Typer shell completion is on (issue 8 "Publishable"), through the real command."""

from __future__ import annotations

import os
import subprocess


def _run(cli: str, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([cli, *args], capture_output=True, text=True, timeout=60, env={**os.environ, **env})


def test_help_offers_completion(cli: str) -> None:
    out = _run(cli, "--help", COLUMNS="120").stdout
    assert "--install-completion" in out and "--show-completion" in out


def test_show_completion_prints_a_bash_script(cli: str) -> None:
    done = _run(cli, "--show-completion", "bash")
    assert done.returncode == 0
    assert "_liars_dice_completion" in done.stdout and "complete " in done.stdout


def test_bash_completes_commands_and_options(cli: str) -> None:
    """What bash asks the installed script: the words for ``liars-dice pl<TAB>`` and ``play --ru<TAB>``."""
    words = _run(cli, _LIARS_DICE_COMPLETE="complete_bash", COMP_WORDS="liars-dice pl", COMP_CWORD="1")
    assert words.stdout.split() == ["play"]
    opts = _run(cli, _LIARS_DICE_COMPLETE="complete_bash", COMP_WORDS="liars-dice play --ru", COMP_CWORD="2")
    assert opts.stdout.split() == ["--rules"]
