"""The tests that compare against the peers' data (../shared/peer-data)
skip cleanly when it is absent: they find it through tests/_peer.py only,
and every one of them skips -- none fails or errors -- without it."""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests import _peer

TESTS = Path(__file__).resolve().parent
# The test files that read the peers' data (through the fixtures of
# tests/conftest.py, which mark their tests "peer_data").
USERS = ("test_trec.py", "test_cli.py", "test_presets.py", "test_ltr.py")


def test_no_test_finds_the_peer_data_another_way():
    # the folder's name as a string literal, or the environment variable,
    # anywhere but in tests/_peer.py: a path built by hand, which would
    # raise FileNotFoundError (or silently test nothing) without the data
    literal = re.compile(r"""["']peer-data["']|["']shared["']\s*/""")
    offenders = []
    for path in sorted(TESTS.glob("*.py")):
        if path.name in ("_peer.py", Path(__file__).name):
            continue
        text = path.read_text(encoding="utf-8")
        if literal.search(text) or _peer.ENV in text:
            offenders.append(path.name)
    assert offenders == []


def test_need_peer_skips_when_the_data_is_absent(tmp_path, monkeypatch):
    monkeypatch.setenv(_peer.ENV, str(tmp_path / "absent"))
    assert _peer.peer_data_root() is None
    with pytest.raises(pytest.skip.Exception, match="'trec_eval' is absent"):
        _peer.need_peer("trec_eval")
    # a folder without the entry asked for
    monkeypatch.setenv(_peer.ENV, str(tmp_path))
    assert _peer.peer_data_root() == tmp_path
    with pytest.raises(pytest.skip.Exception, match="'lightgbm_lambdarank'"):
        _peer.need_peer("lightgbm_lambdarank")
    (tmp_path / "trec_eval").mkdir()
    assert _peer.need_peer("trec_eval") == tmp_path / "trec_eval"


def test_every_peer_data_test_skips_without_the_data(tmp_path):
    env = dict(os.environ, **{_peer.ENV: str(tmp_path / "absent")})
    root = TESTS.parent
    done = subprocess.run(
        [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            "-m", "peer_data", "-rs", "--no-header",
            *(str(TESTS / name) for name in USERS),
        ],
        cwd=root, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    out = done.stdout + done.stderr
    assert done.returncode == 0, out[-3000:]
    summary = out.strip().splitlines()[-1]
    counts = dict((word, int(n)) for n, word in re.findall(r"(\d+) (\w+)", summary))
    assert counts.get("skipped", 0) >= 20, summary
    assert set(counts) <= {"skipped", "deselected"}, summary  # none ran
    assert "is absent" in out
