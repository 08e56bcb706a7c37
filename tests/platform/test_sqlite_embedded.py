"""The embedded SQLite default (no DATABASE_URL): WAL, a busy timeout and immediate
transactions, so the stack's processes writing at once wait for each other instead of
failing with "database is locked" (which the API answers as 503)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PRAGMAS = """
import django
django.setup()
from django.db import connection
with connection.cursor() as cursor:
    for name in ("journal_mode", "busy_timeout"):
        cursor.execute(f"PRAGMA {name}")
        print(name, cursor.fetchone()[0])
"""

# One writer of several at once: each transaction reads, then writes what it read, the
# pattern of a ladder join (is the bot entered? enter it). Deferred transactions that
# must upgrade a read lock to a write lock fail at once, whatever the busy timeout.
WRITER = """
import django
django.setup()
from django.db import connection, transaction
for i in range(40):
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT COUNT(*) FROM entries")
        seen = cursor.fetchone()[0]
        cursor.execute("INSERT INTO entries (seen) VALUES (%s)", [seen])
"""


def _env(var: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    settings = {"DJANGO_SETTINGS_MODULE": "heights_platform.settings"}  # not the tests'
    return env | settings | {"HEIGHTS_VAR_DIR": str(var)}


def _python(code: str, var: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-c", code],
        env=_env(var),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_the_embedded_database_runs_in_wal_mode_with_a_busy_timeout(tmp_path: Path) -> None:
    out, err = _python(PRAGMAS, tmp_path).communicate(timeout=120)
    assert dict(line.split() for line in out.splitlines()) == {
        "journal_mode": "wal",
        "busy_timeout": "30000",
    }, err
    assert (tmp_path / "platform.sqlite3").exists()


def test_processes_writing_at_once_all_succeed(tmp_path: Path) -> None:
    create = "import django\ndjango.setup()\nfrom django.db import connection\n"
    create += "connection.cursor().execute('CREATE TABLE entries (seen INTEGER)')\n"
    created = _python(create, tmp_path)
    _, err = created.communicate(timeout=120)
    assert created.returncode == 0, err
    writers = [_python(WRITER, tmp_path) for _ in range(4)]
    errors = [w.communicate(timeout=300)[1] for w in writers]
    assert [w.returncode for w in writers] == [0, 0, 0, 0], "\n".join(errors)
    count = "import django\ndjango.setup()\nfrom django.db import connection\n"
    count += "c = connection.cursor()\nc.execute('SELECT COUNT(*), MAX(seen) FROM entries')\n"
    count += "print(*c.fetchone())\n"
    out, _ = _python(count, tmp_path).communicate(timeout=120)
    # Serialised: each writer saw every row written before it, so the counts run 0..159.
    assert out.split() == ["160", "159"]
