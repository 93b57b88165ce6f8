"""A PostgreSQL cluster of the tests' own, on a free loopback port, that a
test may stop (``fast`` or ``immediate``: a database crash) and start again
without touching the cluster the other tests share (``.ci/run``'s).

Made with the installed PostgreSQL's ``initdb`` and ``pg_ctl``, run as the
``postgres`` user; needs root (CI runs as root). :func:`available` says
whether this machine can.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def _bin_dir() -> Path | None:
    root = Path("/usr/lib/postgresql")
    if not root.is_dir():
        return None
    versions = sorted((p for p in root.iterdir() if (p / "bin" / "pg_ctl").exists()), key=lambda p: int(p.name) if p.name.isdigit() else 0)
    return versions[-1] / "bin" if versions else None


def available() -> bool:
    """Root, a ``postgres`` user and PostgreSQL's binaries are all here."""
    return os.geteuid() == 0 and shutil.which("runuser") is not None and _bin_dir() is not None and _has_user()


def _has_user() -> bool:
    import pwd

    try:
        pwd.getpwnam("postgres")
    except KeyError:
        return False
    return True


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Cluster:
    """One throw-away cluster: trust authentication on 127.0.0.1, a superuser
    ``liars`` and a database ``liars_faults``; :attr:`url` reaches it."""

    def __init__(self) -> None:
        bin_dir = _bin_dir()
        assert bin_dir is not None
        self.bin = bin_dir
        self.root = Path(tempfile.mkdtemp(prefix="liars-dice-pg-"))
        os.chmod(self.root, 0o755)
        self.data = self.root / "data"
        self.port = _free_port()
        self.url = f"postgresql://liars@127.0.0.1:{self.port}/liars_faults"
        shutil.chown(self.root, "postgres", "postgres")
        self._as_postgres(str(self.bin / "initdb"), "-D", str(self.data), "-U", "liars", "-A", "trust", "--no-sync")
        self.start()
        self._as_postgres(str(self.bin / "createdb"), "-h", "127.0.0.1", "-p", str(self.port), "-U", "liars", "liars_faults")

    def _as_postgres(self, *cmd: str) -> None:
        subprocess.run(["runuser", "-u", "postgres", "--", *cmd], check=True, capture_output=True, cwd=self.root)

    def start(self) -> None:
        self._as_postgres(
            str(self.bin / "pg_ctl"), "-D", str(self.data), "-l", str(self.root / "log"), "-w", "-t", "60",
            "-o", f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 -c max_connections=60", "start",
        )

    def stop(self, mode: str = "fast") -> None:
        """Stop the cluster: ``fast`` (clean shutdown) or ``immediate`` (a crash:
        no checkpoint, recovery from the WAL at the next start)."""
        self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", mode, "-w", "stop")

    def remove(self) -> None:
        try:
            self.stop("immediate")
        except subprocess.CalledProcessError:
            pass
        shutil.rmtree(self.root, ignore_errors=True)
