"""`python -m rules name` and `read`: moves named in a chosen notation and read back to coordinates,
run as real subprocesses.  Expected names are the textbook ones (炮二平五, 马8进7) and Korean records'
(08마87, 79졸78, 한수쉼)."""
from __future__ import annotations

import pytest
from support.rules_cli import ok, refused

MIDDLE = "rnbakab1r/9/1c4nc1/p1p1p1p1p/9/9/P1P1P1P1P/1C2C4/9/RNBAKABNR w - - 2 2"  # after 炮二平五 马8进7

pytestmark = pytest.mark.slow   # checked against an independent reference over many positions


def test_name_plays_moves_in_turn_in_any_notation() -> None:
    out = ok("name", "xiangqi", "--notation", "chinese", "h3e3", "马8进7", "H2+3", "i10h10")
    assert out.splitlines() == ["炮二平五", "马8进7", "马二进三", "车9平8"]
    out = ok("name", "xiangqi", "--notation", "chinese-traditional", "h3e3", "h10g8")
    assert out.splitlines() == ["炮二平五", "馬8進7"]
    out = ok("name", "xiangqi", "--notation", "wxf", "炮二平五")
    assert out.splitlines() == ["C2=5"]


def test_name_janggi_in_korean() -> None:
    out = ok("name", "janggi", "--notation", "korean", "h1g3", "pass", "i4h4")
    assert out.splitlines() == ["08마87", "한수쉼", "79졸78"]


def test_name_from_a_fen() -> None:
    out = ok("name", "xiangqi", "--notation", "chinese", "--fen", MIDDLE, "h1g3")
    assert out.splitlines() == ["马二进三"]


def test_read_prints_coordinates() -> None:
    out = ok("read", "xiangqi", "--notation", "chinese", "炮二平五", "馬８進７", "馬二進三")
    assert out.splitlines() == ["h3e3", "h10g8", "h1g3"]
    out = ok("read", "janggi", "--notation", "korean", "08마87", "한수쉼", "79卒78")
    assert out.splitlines() == ["h1g3", "pass", "i4h4"]


def test_read_takes_only_the_notation_named() -> None:
    assert "is not a move in Chinese" in refused("read", "xiangqi", "--notation", "chinese", "h3e3")
    assert "is not a move in Korean notation" in refused("read", "janggi", "--notation", "korean", "h1g3")


def test_a_notation_the_game_lacks_is_refused_with_those_it_has() -> None:
    error = refused("name", "janggi", "--notation", "chinese", "h1g3")
    assert "Janggi has no chinese notation; its notations are coordinates, korean" in error
    error = refused("read", "xiangqi", "--notation", "korean", "--batch", stdin="\t08마87\n")
    assert "Xiangqi has no korean notation; its notations are coordinates, wxf, chinese, " \
           "chinese-traditional" in error


def test_batch_answers_every_line_and_goes_on_after_an_error() -> None:
    lines = f"\th3e3\n{MIDDLE}\th1g3\n\t炮二走五\nnot a fen\th3e3\n\th3h9\n\n{MIDDLE}\tC5+4\n"
    out = ok("name", "xiangqi", "--notation", "chinese", "--batch", stdin=lines).splitlines()
    assert out[:2] == ["炮二平五", "马二进三"]
    assert out[2].startswith("error: '炮二走五' is not a move I can read")
    assert out[3].startswith("error: ")
    assert out[4].startswith("error: h3h9 is not a legal move")
    assert out[5] == "炮五进四"
    assert len(out) == 6


def test_read_batch() -> None:
    lines = "\t08마87\n\t08차87\n\t한수쉼\n\th1g3\n"
    out = ok("read", "janggi", "--notation", "korean", "--batch", stdin=lines).splitlines()
    assert out[0] == "h1g3"
    assert out[1].startswith("error: 08차87 is not a legal move: the piece on 08 is Cho's horse")
    assert out[2] == "pass"
    assert out[3].startswith("error: 'h1g3' is not a move in Korean notation")
