"""Files written whole or not at all (``liars_dice.records.writing``): game
records (``play --record``), opponent models (``model fit -o``) and endgame
tables. A write that fails half-way (a full disk) used to leave half a model
or record where the earlier file was."""

from __future__ import annotations

import errno
import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from liars_dice.cli import app
from liars_dice.records import writing
from liars_dice.records.writing import write_atomically, write_text_atomically


def _full_disk(f) -> None:  # type: ignore[no-untyped-def]
    f.write(b"half of it")
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failed_write_leaves_the_earlier_file_whole_and_nothing_beside_it(tmp_path: Path) -> None:
    path = tmp_path / "m.json"
    write_text_atomically(path, "earlier")
    with pytest.raises(OSError) as e:
        write_atomically(path, _full_disk)
    assert e.value.errno == errno.ENOSPC
    assert path.read_text() == "earlier"
    assert [p.name for p in tmp_path.iterdir()] == ["m.json"]


def test_the_file_is_as_open_would_make_it_and_a_link_is_kept(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    target = tmp_path / "real" / "m.json"
    link = tmp_path / "m.json"
    link.symlink_to(target)
    write_text_atomically(link, "é\n")
    assert link.is_symlink() and target.read_bytes() == "é\n".encode("utf-8")
    mask = os.umask(0)
    os.umask(mask)
    assert target.stat().st_mode & 0o777 == 0o666 & ~mask  # not mkstemp's 0600
    assert sorted(p.name for p in (tmp_path / "real").iterdir()) == ["m.json"]


def test_model_fit_on_a_full_disk_keeps_the_earlier_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``model fit -o`` wrote the model in place: a full disk left half a model
    (attack7). The disk is made full at the rename, the one step the real
    writer cannot be stopped before."""
    from test_opponent_model import _records

    rec = tmp_path / "g.json"
    rec.write_text(json.dumps(_records(1)[0]))
    out = tmp_path / "ann.model.json"
    ok = CliRunner().invoke(app, ["model", "fit", str(rec), "--player", "ann", "-o", str(out)])
    assert ok.exit_code == 0, ok.output

    def no_space(src: str, dst: str) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(writing.os, "replace", no_space)
    out.write_bytes(b"the earlier model")
    earlier = out.read_bytes()
    bad = CliRunner().invoke(app, ["model", "fit", str(rec), "--player", "ann", "-o", str(out)])
    assert bad.exit_code != 0
    assert f"Cannot write {out}: {os.strerror(errno.ENOSPC)}." in bad.output
    assert out.read_bytes() == earlier
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ann.model.json", "g.json"]
