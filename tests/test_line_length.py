"""Every mail fits a classic mail window: no line over 78 characters (RFC 5322's recommendation),
for every template, with every game; and reads as English: "1 move", "20 days", a count of 0
(never "1 moves", "20.0 days" or "None").  The mails are real ones, made by commands through
intake: welcome, help pages, boards, offers, errors, profiles, history, vacation."""
from __future__ import annotations

import dataclasses
import re

import pytest
from support.postoffice import PASSWORDS, PostOffice, text

from pbm import catalogue, i18n
from pbm.commands import wording
from pbm.outbox import compose
from pbm.review import worker
from pbm.review.engine import Settings

LIMIT = 78
PINNED_ROOT = "5k3/9/9/9/9/4c4/3r5/3NB4/4A4/4K4_w_-_-_0_1"   # fsf-27: Black chases a pinned horse
FEN = re.compile(r"\S+/\S+ [wb] ")
# English a mail must never hold: a singular count with a plural noun, a Python None, a float's .0
NOT_ENGLISH = re.compile(r"\b1 (?:moves|days|games|words|points|plies|times|mails|replies)\b"
                         r"|\bNone\b|\b\d+\.0\b")
# A first move of each game, from the start, in coordinates; and the second player's answer.
OPENINGS = {"xiangqi": ("h3e3", "h10g8"), "janggi": ("a4a5", "a7a6"), "padwarqi": ("a4a5", "a7a6"),
            "giqi": ("a2a3", "a7a6")}


def test_the_openings_cover_every_game():
    assert set(OPENINGS) == set(catalogue.served())


# The readers' languages, with the notation each reads its games in (counted in display columns:
# a Chinese or Korean character takes two).
LANGUAGES = {"en": "both", "zh-Hans": "chinese", "zh-Hant": "chinese-traditional", "ko": "korean"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_no_line_of_any_mail_is_longer_than_78_characters(tmp_path, monkeypatch, lang):
    rendered: set[str] = set()
    real, real_html = compose.render, compose.render_html
    monkeypatch.setattr(compose, "render", lambda name, /, **v: rendered.add(name) or real(name, **v))
    monkeypatch.setattr(compose, "render_html",           # (checked for being rendered; HTML has
                        lambda name, /, **v: rendered.add(name) or real_html(name, **v))  # no lines)
    post = PostOffice(tmp_path)
    post.signup("alice", "bob", "carol", "root")
    for user in ("alice", "bob", "carol", "root"):
        post.send(f"set {user} {PASSWORDS[user]} lang={lang} notation={LANGUAGES[lang]}",
                  sender=f"{user}@example.org")
    mails = post.send(f"signup dave Dav3-Secret lang={lang}", sender="dave@example.org")   # the welcome
    mails += post.send("help") + post.send("help multiple") + post.send("help reply") + \
        post.send("help move") + post.send("list") + post.send("nonsense words")
    for number, game in enumerate(catalogue.served(), start=101):
        first, second = OPENINGS[game]
        mails += post.send(f"{game} help")
        mails += post.send(f"{game} challenge alice bob", sender="alice@example.org")
        board = 101
        for user, move in (("alice", first), ("bob", second)):
            mails += post.send(f"{game} move {board} {user} {PASSWORDS[user]} {move}", "A comment.",
                               sender=f"{user}@example.org")
            mails += post.send(f"{game} status {board}")
        mails += post.send(f"{game} move {board} alice {PASSWORDS['alice']} z9z9")
        mails += post.send(f"{game} queue {board} bob {PASSWORDS['bob']} {second}", sender="bob@example.org")
        mails += post.send(f"{game} chat {board} bob {PASSWORDS['bob']}", "Nice.", sender="bob@example.org")
        mails += post.send(f"{game} subscribe {board} carol {PASSWORDS['carol']}", sender="carol@example.org")
        mails += post.send(f"{game} show {board}") + post.send(f"{game} status {board}")
        mails += post.send(f"{game} move {board} alice {PASSWORDS['alice']} undo")
        mails += post.send(f"{game} move {board} bob {PASSWORDS['bob']} reject", sender="bob@example.org")
        mails += post.send(f"{game} move {board} alice {PASSWORDS['alice']} propose")
        mails += post.send(f"{game} games") + post.send(f"{game} history")
        mails += post.send(f"{game} record {board}") + post.send(f"{game} player alice")
        mails += post.send(f"{game} move {board} bob {PASSWORDS['bob']} accept", sender="bob@example.org")
        mails += post.send(f"{game} player alice") + post.send(f"{game} history alice")   # a draw only
        mails += post.send(f"{game} standings")
        mails += post.send(f"{game} ratings")
    mails += post.send("xiangqi challenge alice bob", sender="alice@example.org")      # Board 102
    mails += post.send(f"xiangqi conditional 102 bob {PASSWORDS['bob']}", "h3e3 h10g8\nh3h9 h10g8",
                       sender="bob@example.org")
    mails += post.send(f"xiangqi conditional 102 bob {PASSWORDS['bob']}", "h3e3 h10g8 h1g3 i10h10\n"
                       "b3e3 b8e8", sender="bob@example.org")
    mails += post.send("xiangqi status 102", sender="bob@example.org")
    mails += post.send(f"xiangqi submit 102 alice {PASSWORDS['alice']} h3e3", sender="alice@example.org")
    mails += post.send(f"xiangqi confirm 102 alice {PASSWORDS['alice']}", sender="alice@example.org")
    mails += post.send(f"xiangqi notify alice {PASSWORDS['alice']}", sender="alice@example.org")
    mails += post.send(f"xiangqi limit bob {PASSWORDS['bob']} 1", sender="bob@example.org")
    mails += post.send("xiangqi challenge alice bob", sender="alice@example.org")        # refused
    mails += post.send(f"xiangqi limit bob {PASSWORDS['bob']} off", sender="bob@example.org")
    mails += post.send(f"xiangqi move 102 alice {PASSWORDS['alice']} h1g3", sender="elsewhere@example.net")
    # a perpetual chase (a pinned protector): the warning, the ruling, the ruling again, an appeal
    mails += post.send(f"xiangqi challenge -fen={PINNED_ROOT} alice bob", sender="alice@example.org")
    chase = post.db.execute("SELECT board FROM games ORDER BY id DESC LIMIT 1").fetchone()[0]
    for ply, move in enumerate(("e1d1 e5d5 d1e1 d5e5 " * 2).split()):
        user = ("alice", "bob")[ply % 2]
        mails += post.send(f"xiangqi move {chase} {user} {PASSWORDS[user]} {move}", sender=f"{user}@example.org")
    mails += post.send(f"xiangqi ruling {chase}")
    mails += post.send(f"xiangqi appeal {chase} bob {PASSWORDS['bob']}", APPEAL, sender="bob@example.org")
    mails += post.send(f"xiangqi tournament create rr alice {PASSWORDS['alice']} --system=roundrobin",
                       sender="alice@example.org")
    for user in ("alice", "bob", "carol", "root"):
        mails += post.send(f"xiangqi tournament join rr {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    mails += post.send(f"xiangqi tournament start rr alice {PASSWORDS['alice']}", sender="alice@example.org")
    mails += post.send(f"xiangqi tournament create cup alice {PASSWORDS['alice']} --system=knockout",
                       sender="alice@example.org")
    for user in ("alice", "bob"):
        mails += post.send(f"xiangqi tournament join cup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    mails += post.send(f"xiangqi tournament start cup alice {PASSWORDS['alice']}", sender="alice@example.org")
    board, mover = post.db.execute("SELECT board, to_move FROM games ORDER BY id DESC LIMIT 1").fetchone()
    mails += post.send(f"xiangqi move {board} {mover} {PASSWORDS[mover]} h3e3", sender=f"{mover}@example.org")
    mails += post.send(f"xiangqi move {board} {mover} {PASSWORDS[mover]} resign", sender=f"{mover}@example.org")
    # an engine's review of that game: asked for (queued), done (few nodes), mailed
    mails += post.send(f"xiangqi review {board} alice {PASSWORDS['alice']}", sender="alice@example.org")
    worker.run(post.config, post.db, dataclasses.replace(Settings.of(post.config), nodes=2000))
    mails += post.tick(0)
    # bob directs it: alice has created the two tournaments a week allows
    mails += post.send(f"xiangqi tournament create spring bob {PASSWORDS['bob']} --system=swiss "
                       f"--rounds=3 --tiebreaks=BH-C1,SB", sender="bob@example.org")
    for user in ("alice", "bob", "carol"):
        mails += post.send(f"xiangqi tournament join spring {user} {PASSWORDS[user]}",
                           sender=f"{user}@example.org")
    mails += post.send(f"xiangqi tournament start spring bob {PASSWORDS['bob']}",
                       sender="bob@example.org")
    mails += post.send("xiangqi tournament show spring") + post.send("xiangqi tournaments")
    mails += post.send("xiangqi tournament record spring")
    mails += post.send(f"vacation bob {PASSWORDS['bob']} 20", sender="bob@example.org")
    mails += post.send(f"vacation bob {PASSWORDS['bob']} off", sender="bob@example.org")
    mails += post.send(f"vacation bob {PASSWORDS['bob']} 1", sender="bob@example.org")
    mails += post.send(f"vacation bob {PASSWORDS['bob']} 30", sender="bob@example.org")
    # Janggi setups (by challenge and by command) and a Gi-Qi promotion, named in the reader's words
    mails += post.send("janggi challenge -setup=outer alice bob", sender="alice@example.org")
    mails += post.send(f"janggi setup 102 bob {PASSWORDS['bob']} left", sender="bob@example.org")
    mails += post.send("janggi status 102")
    mails += post.send(f"giqi challenge -fen={PROMOTING.replace(' ', '_')} alice bob",
                       sender="alice@example.org")
    mails += post.send(f"giqi move 102 alice {PASSWORDS['alice']} e3d2+", sender="alice@example.org")
    mails += post.send("multiple", "xiangqi show 102\nxiangqi status 102", sender="bob@example.org")
    # the limits against floods: an address to confirm, a reset code too many, a challenge too many
    mails += post.send("signup dora D0ra-pass1 dora@home.example.org", sender="dora@example.org")
    for _ in range(4):
        mails += post.send("password reset carol", sender="stranger@example.net")
    for challenger in ("alice", "alice", "alice", "bob", "bob", "bob"):
        mails += post.send(f"janggi challenge {challenger} root", sender=f"{challenger}@example.org")
    mails += post.tick(2)
    mails += post.send("change password alice Sw0rdfish N3w-secret-pw")     # with the new reply addresses
    for game in catalogue.served():             # the page of a game without its own help page
        monkeypatch.setitem(catalogue.GAMES, game, dataclasses.replace(catalogue.GAMES[game],
                                                                       help_template="game_help.j2"))
        mails += post.send(f"{game} help")
    # page.html.j2, tournament_page.html.j2 and ratings_page.html.j2 are web pages, not mails
    # (tests/test_web.py)
    assert rendered >= {path.name for path in _templates()} - {"game_commands.j2", "page.html.j2",
                                                               "tournament_page.html.j2",
                                                               "ratings_page.html.j2"} - \
        {f"{g}_help.j2" for g in ("xiangqi", "janggi", "padwarqi", "giqi") if g not in catalogue.served()}
    # a link or a FEN is never broken: a copy of a broken one would not work
    long = [(mail["Subject"], line) for mail in mails for line in text(mail).splitlines()
            if i18n.width(line) > LIMIT and not line.strip().startswith("https://") and not FEN.match(line)]
    assert not long, "\n".join(f"{subject}: {line!r} ({i18n.width(line)})" for subject, line in long)
    assert_in_the_readers_words(mails, lang)
    if lang != "en":
        return
    wrong = [(mail["Subject"], line) for mail in mails for line in text(mail).splitlines()
             if NOT_ENGLISH.search(line) and not line.strip().startswith("https://")]
    assert not wrong, "\n".join(f"{subject}: {line!r}" for subject, line in wrong)
    said = "\n".join(text(mail) for mail in mails)
    for sentence in ("You asked to take back", "1 move so far", "0 won, 1 drawn, 0 lost",
                     "Vacation days left this year after it: 10 of 30.",
                     "then if alice plays h1g3 (H2+3), you play i10h10 (R9=8).",
                     "Preview: nothing was played yet.", "The Xiangqi tournament cup is over.",
                     "This was sent from elsewhere@example.net,",
                     "asked that the mail of dora", "reset codes in the last day",
                     "A challenge to you from bob", "The new reply addresses of your",
                     "chases the horse on d3 (unprotected: its protector,",
                     "Rule 4: A side that newly chased", "bob appeals against the ruling"):
        assert sentence in said                 # the walk reached the mails that say them


# What a mail must never show a reader: the database's event codes, a Python repr, a particle
# field left unformatted; in Korean a particle left to the reader (을(를)); in Chinese and Korean
# an English piece name, or a Janggi setup's English key, romanization or letters, outside the help
# pages (which name the command words, `setup outer`, and the Padwar qi pieces' Barsoomian names)
# and a command's own words (`-setup=outer`).
EVENT_CODES = re.compile(r"\b(?:undo|draw)-(?:offer|rejected|agreed)\b|\bseek-taken\b"
                         r"|\b(?:setup|challenge|accept|resign|timeout|lapsed|undo|tournament) by \w+")
REPR = re.compile(r"\[['\"]|\{['\"]|\{\w+:\w+\}")
FALLBACK = re.compile(r"을\(를\)|를\(을\)|이\(가\)|가\(이\)|은\(는\)|는\(은\)|\(으\)로|와\(과\)|과\(와\)")
PIECE_NAMES = re.compile(r"\b(?:" + "|".join(sorted(wording.PIECES, key=len, reverse=True)) + r")\b")
SETUP_WORDS = re.compile(r"(?<!=)\b(?:inner|outer|left|right|HEEH|EHEH|HEHE|EHHE|(?:ma|sang)(?:-(?:ma|sang)){3})\b")
APPEAL = "The horse was protected."       # a player's own words, quoted as written
PROMOTING = "lhfg3hl/2r1ke1b1/2fgf1f1f/f7Y/Pp1ny2F1/2y6/FPF1e1NPF/1B2GER1L/LHE2KGH1[y] b - - 3 29"


def assert_in_the_readers_words(mails, lang: str) -> None:
    wrong, foreign = [], lang in ("zh-Hans", "zh-Hant", "ko")
    for mail in mails:
        for line in text(mail).splitlines():
            if line.strip().startswith("https://") or FEN.match(line) or line.strip() == APPEAL:
                continue
            named = foreign and "help" not in mail["Subject"] and (PIECE_NAMES.search(line)
                                                                   or SETUP_WORDS.search(line))
            fallback = lang == "ko" and FALLBACK.search(line)
            if EVENT_CODES.search(line) or REPR.search(line) or fallback or named:
                wrong.append((mail["Subject"], line))
    assert not wrong, "\n".join(f"{subject}: {line!r}" for subject, line in wrong)


def _templates():
    from importlib import resources
    return [entry for entry in resources.files("mail_templates").iterdir() if entry.name.endswith(".j2")]
