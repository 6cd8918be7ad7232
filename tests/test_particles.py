"""Korean particles chosen for the word before them (pbm.i18n.particle, docs/translating.md): by the
final consonant of a Hangul syllable, and for digits and Latin letters by how Korean reads them."""
from __future__ import annotations

import pytest

from pbm import i18n


@pytest.mark.parametrize("word, object_, subject, topic, towards, with_", [
    ("차", "를", "가", "는", "로", "와"),            # a vowel: 차가, not 차이 ("difference")
    ("장", "을", "이", "은", "으로", "과"),
    ("서울", "을", "이", "은", "로", "과"),          # ㄹ takes 로
    ("77졸76", "을", "이", "은", "으로", "과"),       # 6 육
    ("11차81", "을", "이", "은", "로", "과"),         # 1 일
    ("h2e2", "를", "가", "는", "로", "와"),           # 2 이
    ("b10c8", "을", "이", "은", "로", "과"),          # 8 팔
    ("a4a5", "를", "가", "는", "로", "와"),           # 5 오
    ("c9", "를", "가", "는", "로", "와"),             # 9 구
    ("3", "을", "이", "은", "으로", "과"),             # 삼
    ("110", "을", "이", "은", "으로", "과"),           # 백십
    ("0", "을", "이", "은", "으로", "과"),             # 영
    ("g1a7+", "을", "이", "은", "로", "과"),           # the + is not read: 칠
    ("h3e3 (C2=5)", "를", "가", "는", "로", "와"),     # nor the bracket: 오
    ("lang=fr", "을", "이", "은", "로", "과"),         # R 알
    ("HEHE", "를", "가", "는", "로", "와"),            # E 이
    ("spring2026", "을", "이", "은", "으로", "과"),
    ("Xiangqi Board 101", "을", "이", "은", "로", "과"),
    ("程", "를", "가", "는", "로", "와"),               # unknown: as after a vowel
])
def test_the_particle_fits_the_word(word, object_, subject, topic, towards, with_):
    assert [i18n.particle(word, form) for form in ("을", "이", "는", "로", "와")] == \
        [object_, subject, topic, towards, with_]
    assert i18n.particle(word, "를") == object_        # either form names the particle


def test_a_translation_writes_the_particle_as_its_fields_spec():
    text = i18n.Particled("{user} 님이 {move:을} 두고 {piece:로} 승격했습니다.")
    assert text.format(user="dave", move="g1a7+", piece="화살") == \
        "dave 님이 g1a7+을 두고 화살로 승격했습니다."
    assert text.format_map({"user": "dave", "move": "e3d2+", "piece": "원수"}) == \
        "dave 님이 e3d2+를 두고 원수로 승격했습니다."
    # a template's message (%-formatted) may write its value so too
    signed = i18n.Particled("사용자 ID {user:로} 가입되었습니다. %(address)s")
    assert signed % {"user": "bob", "address": "bob@example.org"} == \
        "사용자 ID bob로 가입되었습니다. bob@example.org"


def test_only_a_korean_translation_with_particle_fields_is_particled():
    with i18n.speaking("ko"):
        assert isinstance(i18n._("{move} is not a legal move: {why}"), i18n.Particled)
        assert type(i18n._("Draw ({why}).")) is str
    with i18n.speaking("en"):
        assert type(i18n._("{move} is not a legal move: {why}")) is str
