"""Every mail of whole games, to readers who chose Chinese or Korean notation, names moves and points
in that notation: moves and move lists, the footer's example, refusals (a Korean reader is told of
point 02, not b1), repetition warnings, a perpetual chase (whose piece, by its file), replays and
previews.  The players write in their notation, so a coordinate anywhere outside a FEN or a link is
the server's."""
from __future__ import annotations

import re
from email.message import EmailMessage

import pytest
from support.postoffice import PASSWORDS, PostOffice, text
from test_mail_languages import JANGGI_MATE
from test_repetition import ROOK_FOLLOWS_CANNON

import rules
from pbm.mail.html_text import html_to_text

COORDINATE = re.compile(r"(?<![A-Za-z0-9])[a-i](10|[1-9])(?![0-9])")
FEN = re.compile(r"\S+/\S+/\S+")
READERS = {"carol": ("zh-Hans", "chinese"), "erin": ("zh-Hant", "chinese-traditional"),
           "dave": ("ko", "korean")}
OWN = {"carol": "Car0l-Secret", "erin": "Er1n-Secret", "dave": "Dav3-Secret"}


def coordinates(mail: EmailMessage) -> list[str]:
    """The lines of a mail (subject, plain text, the HTML's text) that hold a coordinate, FENs and
    links aside."""
    html = mail.get_body(preferencelist=("html",))
    lines = [str(mail["Subject"]), *text(mail).splitlines(),
             *(html_to_text(html.get_content()).splitlines() if html is not None else [])]
    return [line for line in lines if COORDINATE.search(FEN.sub("", re.sub(r"https?://\S+", "", line)))]


class Walk:
    """A post office whose every mail to a reader of a notation is checked."""

    def __init__(self, post: PostOffice) -> None:
        self.post, self.seen = post, []
        post.signup("alice", "bob")
        for user, (lang, style) in READERS.items():
            post.send(f"signup {user} {OWN[user]} lang={lang} notation={style}", sender=f"{user}@example.org")

    def send(self, subject: str, user: str, body: str = "") -> dict[str, EmailMessage]:
        return self._keep(self.post.send(subject, body, sender=f"{user}@example.org"))

    def command(self, game: str, verb: str, board: int, user: str, *args: str) -> dict[str, EmailMessage]:
        password = OWN.get(user) or PASSWORDS[user]
        return self.send(" ".join([game, verb, str(board), user, password, *args]), user)

    def reply(self, mail: EmailMessage, body: str) -> dict[str, EmailMessage]:
        return self._keep(self.post.reply(mail, body))

    def _keep(self, mails: list[EmailMessage]) -> dict[str, EmailMessage]:
        self.seen += mails
        return {m["To"].split("@")[0]: m for m in mails}

    def assert_in_notation(self, *readers: str) -> None:
        """`readers` had mails, and no mail to a reader of a notation held a coordinate."""
        found = [(m["To"], line) for m in self.seen if m["To"].split("@")[0] in READERS
                 for line in coordinates(m)]
        assert not found, found
        assert {m["To"].split("@")[0] for m in self.seen} >= set(readers)


@pytest.fixture
def walk(tmp_path) -> Walk:
    return Walk(PostOffice(tmp_path))


def chinese(game: rules.Game, move: str, style: str = "chinese") -> str:
    """`move` played on `game`, named in `style`."""
    game.play(move)
    return game.name_last(style)


def test_a_perpetual_chase_warned_and_ruled_in_chinese_notation(walk):
    walk.send(f"xiangqi challenge -fen={ROOK_FOLLOWS_CANNON.replace(' ', '_')} carol erin", "carol")
    game = rules.Game.new("xiangqi", None, ROOK_FOLLOWS_CANNON)
    mails = {}
    for ply, move in enumerate("c1b1 b7c7 b1c1 c7b7 c1b1 b7c7 b1c1 c7b7".split()):
        user, style = ("carol", "chinese") if ply % 2 == 0 else ("erin", "chinese-traditional")
        mails = walk.command("xiangqi", "move", 101, user, chinese(game, move, style))
        if ply == 3:
            assert "从 车七平八 起再重复一遍这个循环，即成长捉黑方2路炮，判负。" in text(mails["carol"])
    assert mails["carol"]["Subject"] == "Xiangqi Board 101 over: erin 胜（红方长捉黑方2路炮）"
    assert mails["erin"]["Subject"] == "Xiangqi Board 101 over: erin 勝（紅方長捉黑方2路砲）"
    walk.send("xiangqi status 101", "carol")
    walk.assert_in_notation("carol", "erin")


def test_a_xiangqi_game_with_refusals_replays_and_previews_in_chinese_notation(walk):
    walk.send("xiangqi challenge carol alice", "carol")
    game = rules.Game.new("xiangqi")
    walk.command("xiangqi", "move", 101, "carol", "马八进六")             # no such move
    walk.command("xiangqi", "move", 101, "carol", chinese(game, "h3e3"))
    mails = walk.command("xiangqi", "move", 101, "alice", "h10g8")
    game.play("h10g8")
    walk.reply(mails["carol"], "兵五平四")                                  # a soldier cannot go sideways yet
    walk.reply(mails["carol"], "Hi alice,\n\n" + chinese(game, "b1c3"))
    walk.send("xiangqi replay 101 2 马二进三 车9进1", "carol")
    walk.send("xiangqi replay 101 1 马二进三 马二进三", "carol")
    walk.send("xiangqi preview 101 车9平8 车一平二", "carol")
    walk.send("xiangqi preview 101 车9平8 车一进九", "carol")
    walk.command("xiangqi", "queue", 101, "carol", "车一平二")
    walk.send("xiangqi status 101", "carol")
    walk.assert_in_notation("carol")


def test_a_janggi_game_with_refusals_replays_and_previews_in_korean_notation(walk):
    walk.send("janggi challenge dave bob", "dave")
    walk.command("janggi", "move", 101, "dave", "02마83")
    walk.command("janggi", "move", 101, "bob", "b10c8")
    mails = walk.command("janggi", "move", 101, "dave", "02마83")              # the horse has gone
    assert "02에는 기물이 없습니다" in text(mails["dave"])
    walk.command("janggi", "move", 101, "dave", "83마75")                      # blocked
    walk.command("janggi", "move", 101, "dave", "71졸61")
    walk.send("janggi replay 101 1 12마33 09차08", "dave")
    walk.send("janggi preview 101 79졸78 09마88", "dave")
    walk.send("janggi status 101", "dave")
    walk.send(f"janggi challenge -fen={JANGGI_MATE.replace(' ', '_')} dave bob", "dave")
    mails = walk.command("janggi", "move", 102, "dave", "11차81")
    assert mails["dave"]["Subject"] == "Janggi Board 102 over: dave 님 승(외통)"
    walk.assert_in_notation("dave")
