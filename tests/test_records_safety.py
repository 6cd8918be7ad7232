"""Every record reader is linear in its input and answers bad input with a refusal, never an exception
(issue 39): 1 MB of each opening token (`{`, `[DhtmlXQ_a]`, `(`, `[`, ...) through each reader, and
hypothesis-made records and bytes, read as `challenge -record` reads them (pbm.records.importing)."""
from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules
from pbm.records import importing

MB = 1024 * 1024
TOKENS = ["{", "}", "(", ")", "[", "]", ";", "$", '"', "\\", "\n", " ", "1", "1.", "1...", '[a "',
          "[DhtmlXQ]", "[DhtmlXQ_a]", "[DhtmlXQ_movelist]", "[DhtmlXQ_binit]", "[DhtmlXQiFrame]",
          "[/DhtmlXQ_movelist]", "[초차림 ", "[FEN ", "1. 11졸", "79졸78 ", "炮二平五 ", "C2.5 ", "a "]
# One record for each reader: the text is read as PGN, DhtmlXQ and .gib alike.
READERS = [("xiangqi", ""), ("xiangqi", "[DhtmlXQ]\n"), ("janggi", '[초차림 "마상상마"]\n')]


def read_as_a_mail_would(variant: str, data: bytes) -> None:
    """The whole path of `challenge -record`: bytes to text, the record, its moves played; only the
    refusals the command answers may come out."""
    try:
        found = importing.read(variant, importing.text_of(data))
        if found is not None:
            importing.replay(variant, found)
    except (importing.Unplayable, rules.RulesError):
        pass


@pytest.mark.parametrize("token", TOKENS)
def test_a_megabyte_of_an_opening_token_is_read_in_linear_time(token):
    slowest = 0.0
    for variant, head in READERS:
        data = (head + token * (MB // len(token.encode()))).encode()[:MB]
        started = time.perf_counter()
        read_as_a_mail_would(variant, data)
        slowest = max(slowest, time.perf_counter() - started)
    # A linear reader takes a fraction of a second here; the quadratic ones took minutes.
    assert slowest < 5, f"{token!r}: {slowest:.1f} s"


PIECES = st.sampled_from(TOKENS + ["[DhtmlXQ_movelist]77479989[/DhtmlXQ_movelist]", "1-0", "*", "0-1",
                                   "[DhtmlXQ_binit]" + "99" * 31 + "9", "[DhtmlXQ_binit]" + "10" * 32,
                                   "[Event \"x\"]\n", "\r\n", "h3e3 ", "C+-1 ", "Pa.5 ", "二兵平六 ",
                                   "한수쉼 ", "[FEN \"9/9 w\"]\n", "[FEN \"" + "k" * 90 + " w\"]\n",
                                   "[DhtmlXQ_binit]" + "0" * 64, "99", "²", "\x00"])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PIECES, max_size=40), st.sampled_from(["xiangqi", "janggi"]))
def test_records_made_of_record_pieces_are_refused_or_read(pieces, variant):
    read_as_a_mail_would(variant, "".join(pieces).encode())


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=600), st.sampled_from(["xiangqi", "janggi"]))
def test_any_bytes_are_refused_or_read(data, variant):
    read_as_a_mail_would(variant, data)
    read_as_a_mail_would(variant, b"[DhtmlXQ_movelist]" + data + b"[/DhtmlXQ_movelist][DhtmlXQ_binit]"
                         + data[:64] + b"[/DhtmlXQ_binit]")


@pytest.mark.parametrize("charset", ["gb18030", "big5", "cp949"])
def test_a_megabyte_in_another_charset_is_read_in_linear_time(charset):
    """Not UTF-8: each candidate charset decodes it and counts the record's characters once."""
    data = ("炮二平五 {" if charset != "cp949" else "79졸78 (").encode(charset) * (MB // 12)
    started = time.perf_counter()
    for variant, _ in READERS:
        read_as_a_mail_would(variant, data[:MB])
    assert time.perf_counter() - started < 10


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="rnbakcpRNBAKCP0123456789/ wb-", max_size=120), st.sampled_from(["xiangqi", "janggi"]))
def test_any_fen_tag_is_refused_or_read(fen, variant):
    read_as_a_mail_would(variant, f'[FEN "{fen}"]\n\n1. h3e3 *\n'.encode())
