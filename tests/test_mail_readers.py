"""Every kind of mail the server sends, read in games between readers of different languages: each
mail is written in its reader's language and notation, whoever caused it.

Eight players, each of the four languages with its own notation and with coordinates, play a
Xiangqi game with a clock for every pair of languages (board, refusal, take-back, draw offer,
status, record, reminder, digest, time-out), Janggi games with setups, a pass and a resignation
written in the readers' words, a perpetual chase with its warning, ruling and appeal, a round robin
(round and standings mails), vacations, player cards and standings.  Through the in-process post
office (real RFC 5322 bytes in and out, a real SQLite file; support.postoffice).

A mail fails on any line in a script or language not its reader's -- Hangul in a Chinese or English
mail, Chinese characters in an English or Korean one, an English word in a Chinese or Korean line --
outside what is kept on purpose (KEPT, below), and on any coordinate or WXF move shown to a reader of
Chinese or Korean notation in a game that has that notation.
"""
from __future__ import annotations

import re
from email.message import EmailMessage

from pathlib import Path

import pytest
from babel.messages.pofile import read_po
from support.postoffice import PostOffice, text
from test_repetition import CYCLE, ROOK_FOLLOWS_CANNON

import rules
from pbm import i18n
from pbm.commands.mails.next_steps import reader_styles
from pbm.commands.registry import COMMANDS
from pbm.model.players import accounts

ROOT = Path(__file__).resolve().parents[1]
READERS = {                     # user: (language, notation): each language with its own and another
    "ann": ("en", "both"), "abe": ("en", "coordinates"),
    "hua": ("zh-Hans", "chinese"), "hao": ("zh-Hans", "both"),
    "tai": ("zh-Hant", "chinese-traditional"), "tsai": ("zh-Hant", "both"),
    "min": ("ko", "korean"), "mun": ("ko", "both"),
}
ARBITERS = ("tai", "abe")
# Every pair of languages plays, each language with both notations, each on either side.
CLOCK_GAMES = [("ann", "hao"), ("tsai", "abe"), ("min", "ann"), ("hua", "tai"), ("mun", "hua"), ("tai", "min")]

# What stays as it is in every language (docs/translating.md, docs/mail.md): the words of the commands
# (every verb, game name and preference with its values) and their placeholders in capitals, pbmserv's
# subject frame and board names (`Xiangqi Board 101`, `over:`, `New`, `Error`), user ids and the
# tournament's name, the server's name, the names of formats, standards and programs (PGN's tag
# names and a PGN record's English comments; Elo, SB; Gmail) -- and what a player wrote.
COMMAND_WORDS = {word for c in COMMANDS for name in (c.verb, *c.aliases) for word in name.split()}
PREFERENCE_WORDS = {word for name, values in accounts.PREFERENCES.items()
                    for word in (name, *values, *name.split("_"), *(v for value in values for v in value.split("-")))}
KEPT = frozenset("""
    xiangqi janggi padwarqi giqi board move pass setup clear help dismiss off multiple en zh ko Hans Hant
    resign propose accept reject undo leave draw
    pgn gib dhtmlxq trf PGN FEN TRF UTC WXF DhtmlXQ SVG ID CP Elo SB Gmail Outlook pychess variants
    timestamp Glicko Lichess Asia Shanghai Seoul Taipei
    New over Error error Board pbm test Xiangqi Janggi cup
    """.split()) | frozenset(READERS) | COMMAND_WORDS | PREFERENCE_WORDS
# Board names kept in their own script in every language: the Janggi setups (Korean names, which
# Chinese readers see glossed in Chinese characters).
BOARD_NAMES = re.compile("마상상마|상마상마|마상마상|상마마상|马象象马|象马象马|马象马象|象马马象|馬象象馬|象馬象馬|馬象馬象|象馬馬象")
HANGUL = re.compile("[\u1100-\u11ff\u3130-\u318f\uac00-\ud7a3]")
HAN = re.compile("[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")


def _characters(locale: str) -> set[str]:
    with open(ROOT / "pbm" / "locale" / locale / "LC_MESSAGES" / "pbm.po", "rb") as f:
        return {c for m in read_po(f) if m.id for text in ([m.string] if isinstance(m.string, str) else m.string)
                for c in text if HAN.match(c)}


# The characters one Chinese catalog writes and the other never does: simplified (钟, 时) in a
# traditional Chinese mail is as wrong as any other language.
_HANS, _HANT = _characters("zh_Hans"), _characters("zh_Hant")
OTHER_SCRIPT = {"zh-Hans": _HANT - _HANS, "zh-Hant": _HANS - _HANT}
# links, addresses, FEN, options (--clock=2+1), the ASCII board's pieces (rR, hC) and PGN's tags
SKIPPED = re.compile(r"https?://\S+|\S+@\S+|\S+/\S+/\S+ [wb] .*|--?[a-z][\w-]*(?:=\S*)?|(?<![\w-])[rbchw][A-Z]\+?(?!\w)"
                     r"|^\[[A-Za-z]+ \".*\"\]$")
FRAME = re.compile(r"(?:New )?(?:Xiangqi|Janggi) (?:Board \d+(?: over:| Error| \*\*)?|error)")
WORD = re.compile(r"[A-Za-z]{2,}")
# ASCII punctuation in Chinese text (`chen: 剩余`, `第 2 步后, chen`): Chinese text takes ，：；
ASCII_MARKS = re.compile(r"(?<=[\u4e00-\u9fff])[,:;]|[,:;] ?(?=[\u4e00-\u9fff])")
COORDINATES = re.compile(r"(?<![\w/-])[a-i](?:10|[1-9])(?:[-x]?[a-i](?:10|[1-9]))?(?![\w/])")
WXF = re.compile(r"(?<![\w/])[KAEBHNRCP+-][1-9.+=-][=+.-]?[1-9](?!\w)")


def password(user: str) -> str:
    return f"{user}-Secret9"


def address(user: str) -> str:
    return f"{user}@example.org"


class Readers:
    """The post office, its players, and every mail it sent, by reader."""

    def __init__(self, office: PostOffice):
        self.office = office
        self.seen: list[EmailMessage] = []
        self.board = {"xiangqi": 100, "janggi": 100}

    def send(self, user: str, line: str, body: str = "") -> dict[str, EmailMessage]:
        return self._keep(self.office.send(line, body, sender=address(user)))

    def reply(self, mail: EmailMessage, body: str) -> dict[str, EmailMessage]:
        return self._keep(self.office.reply(mail, body))

    def tick(self, days: float) -> list[EmailMessage]:
        mails = self.office.tick(days)
        self.seen += mails
        return mails

    def _keep(self, mails: list[EmailMessage]) -> dict[str, EmailMessage]:
        self.seen += mails
        return {str(m["To"]).split("@")[0]: m for m in mails}

    def challenge(self, game: str, first: str, second: str, extra: str = "") -> tuple[int, dict]:
        mails = self.send(first, f"{game} challenge {extra} {first} {second}".replace("  ", " "))
        self.board[game] += 1
        assert mails[second]["Subject"] == f"New {game.capitalize()} Board {self.board[game]} {first}", \
            text(mails[first])
        return self.board[game], mails


def named(game: rules.Game, user: str) -> str:
    """The last move of `game` as `user` writes it: in their notation where the game has it."""
    style = READERS[user][1]
    return game.name_last(style) if style in reader_styles(game.variant) else game.moves[-1]


OPENING = ["h3e3", "h10g8", "h1g3", "i10h10", "i1h1"]
WORDS = {"en": {"accept": "accept", "reject": "reject", "resign": "resign", "pass": "pass"},
         "zh-Hans": {"accept": "接受", "reject": "拒绝", "resign": "认输", "pass": "停着"},
         "zh-Hant": {"accept": "接受", "reject": "拒絕", "resign": "認輸", "pass": "停著"},
         "ko": {"accept": "수락", "reject": "거절", "resign": "기권", "pass": "한수쉼"}}


def play_a_clock_game(readers: Readers, first: str, second: str) -> None:
    """A Xiangqi game with a clock between two readers, through every mail a game sends."""
    number, mails = readers.challenge("xiangqi", first, second, "--clock=2+1")
    pw = {first: password(first), second: password(second)}
    readers.send(second, f"set {second} {pw[second]} digest=daily")
    game = rules.Game.new("xiangqi")
    game.play(OPENING[0])
    mails = readers.send(first, f"xiangqi move {number} {first} {pw[first]} {named(game, first)}")
    # a refusal of a move in the reader's notation: the rook is blocked by its own soldier
    blocked = {"chinese": "车9进3", "chinese-traditional": "車9進3"}.get(READERS[second][1], "a10a7")
    refused = readers.send(second, f"xiangqi move {number} {second} {pw[second]} {blocked}")
    assert refused[second]["Subject"] == f"Xiangqi Board {number} Error"
    game.play(OPENING[1])
    mails = readers.reply(mails[second], f"{named(game, second)}\n\n:-)")
    game.play(OPENING[2])
    readers.send(first, f"xiangqi move {number} {first} {pw[first]} {named(game, first)}")
    mails = readers.send(first, f"xiangqi move {number} {first} {pw[first]} undo")
    readers.reply(mails[second], WORDS[READERS[second][0]]["accept"])      # as the footer glosses it
    mails = readers.send(first, f"xiangqi move {number} {first} {pw[first]} {named(game, first)}")
    mails = readers.send(second, f"xiangqi move {number} {second} {pw[second]} propose")
    readers.reply(mails[first], WORDS[READERS[first][0]]["reject"])
    readers.send(first, f"xiangqi status {number}")
    readers.send(second, f"xiangqi record {number}")
    if READERS[second][0].startswith("zh"):
        readers.send(second, f"xiangqi record {number} zh")
    readers.tick(1.5)                   # the reminder (and the digest at 06:00)
    over = readers.tick(2)              # the time-out
    assert any("over:" in m["Subject"] for m in over), [m["Subject"] for m in over]


def play_a_janggi_game(readers: Readers, cho: str, han: str) -> None:
    """Setups chosen and refused, a pass and a resignation, written as the readers write them."""
    number, mails = readers.challenge("janggi", cho, han, "-setup=마상마상")
    nonsense = {"zh-Hans": "马马象象", "zh-Hant": "馬馬象象", "ko": "마마상상"}.get(READERS[han][0], "HHEE")
    readers.send(han, f"janggi setup {number} {han} {password(han)} {nonsense}")      # refused: no such setup
    mails = readers.reply(mails[han], {"zh-Hans": "setup 马象马象", "zh-Hant": "setup 馬象馬象"}.get(READERS[han][0],
                                                                                             "setup 상마마상"))
    assert han in mails and "Error" not in mails[han]["Subject"], text(mails[han])
    game = rules.Game.new("janggi")
    game.play("a4b4")
    mails = readers.send(cho, f"janggi move {number} {cho} {password(cho)} {named(game, cho)}")
    mails = readers.reply(mails[han], WORDS[READERS[han][0]]["pass"])
    assert "Error" not in mails[cho]["Subject"], text(mails[cho])
    readers.send(han, f"janggi status {number}")
    for user in (cho, han):             # a Korean record for a Korean reader; else PGN
        readers.send(user, f"janggi record {number}" + (" gib" if READERS[user][0] == "ko" else ""))
    mails = readers.send(han, f"janggi show {number}")
    over = readers.reply(mails[han], WORDS[READERS[han][0]]["resign"])
    assert "over:" in over[cho]["Subject"], text(over[han])


def play_the_chase(readers: Readers, red: str, black: str) -> None:
    """A perpetual chase: the warning, the ruling, the ruling again, an appeal and its dismissal."""
    number, _ = readers.challenge("xiangqi", red, black, f"-fen={ROOK_FOLLOWS_CANNON.replace(' ', '_')}")
    game = rules.Game.new("xiangqi", fen=ROOK_FOLLOWS_CANNON)
    for ply, move in enumerate(CYCLE.split(), start=1):
        game.play(move)
        user = red if ply % 2 else black
        mails = readers.send(user, f"xiangqi move {number} {user} {password(user)} {named(game, user)}")
    assert "over:" in mails[red]["Subject"]
    readers.send("abe", f"xiangqi ruling {number}")
    readers.send(red, f"xiangqi appeal {number} {red} {password(red)}", "?!")
    arbiter = ARBITERS[0]
    readers.send(arbiter, f"xiangqi appeal {number} {arbiter} {password(arbiter)} dismiss {red}")


def play_a_round_robin(readers: Readers, players: list[str]) -> None:
    director = players[0]
    readers.send(director, f"xiangqi tournament create cup {director} {password(director)} "
                           f"--system=roundrobin --timeout=3")
    for user in players:
        readers.send(user, f"xiangqi tournament join cup {user} {password(user)}")
    readers.send(director, f"xiangqi tournament start cup {director} {password(director)}")
    for user in players:
        readers.send(user, "xiangqi tournament show cup")


# A line that ends inside a move in Chinese notation (`炮二平` / `五`): the 78-column wrap split it.
SPLIT_MOVE = re.compile(r"(?:[\u4e00-\u9fff][一二三四五六七八九1-9１-９]|[\u4e00-\u9fff]{2})[进進退平]?$")


def laid_out_wrong(mail: EmailMessage) -> list[str]:
    """Lines wider than 78 columns (links and FENs aside), and Chinese moves split by the wrap."""
    return [f"{line!r}" for line in text(mail).splitlines() if not SKIPPED.fullmatch(line.strip())
            and (i18n.width(line) > 78 or SPLIT_MOVE.search(line) and re.search("[进進退平]$", line))]


def foreign(mail: EmailMessage) -> list[str]:
    """The lines of `mail` (its subject first) not in its reader's language or notation."""
    lang, style = READERS[str(mail["To"]).split("@")[0]]
    subject = str(mail["Subject"])
    variant = next((v for v in ("xiangqi", "janggi") if v.capitalize() + " Board" in subject), None)
    notation_reader = variant is not None and style in reader_styles(rules.get_variant(variant))
    wrong = []
    for line in [subject, *text(mail).splitlines()]:
        bare = BOARD_NAMES.sub(" ", FRAME.sub(" ", SKIPPED.sub(" ", line)))
        bad = ((HANGUL.search(bare) if lang != "ko" else None) or (HAN.search(bare) if lang in ("en", "ko") else None)
               or set(bare) & OTHER_SCRIPT.get(lang, set()))
        words = [w for w in WORD.findall(bare) if w not in KEPT and w.lower() not in KEPT
                 and not w.isupper()] if lang != "en" else []
        coordinates = notation_reader and (COORDINATES.search(bare) or WXF.search(bare))
        ascii_marks = lang.startswith("zh") and ASCII_MARKS.search(bare)
        if bad or words or coordinates or ascii_marks:
            wrong.append(f"{line!r}" + (f"  [{' '.join(words)}]" if words else ""))
    return wrong


@pytest.fixture(scope="module")
def readers(tmp_path_factory) -> Readers:
    office = PostOffice(tmp_path_factory.mktemp("readers"), admins=ARBITERS)
    readers = Readers(office)
    for user, (lang, style) in READERS.items():
        readers.send(user, f"signup {user} {password(user)} lang={lang} notation={style}")
    for first, second in CLOCK_GAMES:
        play_a_clock_game(readers, first, second)
    for cho, han in (("min", "hua"), ("ann", "tai"), ("hao", "mun")):
        play_a_janggi_game(readers, cho, han)
    play_the_chase(readers, "min", "hua")
    play_a_round_robin(readers, ["ann", "hua", "tai", "min"])
    readers.send("hao", f"vacation hao {password('hao')} 3")
    for user in ("ann", "hua", "tai", "min"):
        readers.send(user, "xiangqi standings")
        readers.send(user, "xiangqi player mun")
    return readers


@pytest.mark.parametrize("user", list(READERS))
def test_every_mail_is_in_its_readers_language_and_notation(readers, user):
    mine = [m for m in readers.seen if str(m["To"]).split("@")[0] == user]
    assert len(mine) > 10
    wrong = {m["Subject"]: lines for m in mine if (lines := foreign(m) + laid_out_wrong(m))}
    assert not wrong, "\n".join(f"{subject}:\n    " + "\n    ".join(lines) for subject, lines in wrong.items())


KINDS = {   # a kind of mail -> how its subject or text begins, in English
    "board": "New Xiangqi Board", "refusal": "Error", "reminder": "Reminder:", "digest": "your move in",
    "time-out": "ran out of time", "undo": "take back", "draw": "draw", "ruling": "ruling", "appeal": "appeal",
    "round": "tournament cup: round", "standings": "standings", "record": "record", "player": "player mun",
    "vacation": "vacation", "setup": "setup",
}


def test_every_kind_of_mail_was_read(readers):
    """The English readers' mails hold every kind the test is meant to cover (so that it covers them
    in the other languages as well: every game above has an English reader or mirrors one that has)."""
    english = " ".join(f"{m['Subject']} {text(m)}" for m in readers.seen if READERS[m["To"].split("@")[0]][0] == "en")
    assert [kind for kind, words in KINDS.items() if words not in english] == []
