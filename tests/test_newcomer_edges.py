"""What a newcomer tripped on (review of 2026-11-28), through the in-process post office: an appeal on
a server without an arbiter is refused and `pbm doctor` says why; an arbiter dismisses each appeal
by its appellant's name; the password-change mail carries the new page links with the new reply
addresses; harmless parameters are quoted as written in an error; `help set` fits 78 columns; the
words a footer glosses the answers with are read as those answers; a setup typed in the Chinese
characters the mails gloss it with is taken."""
from __future__ import annotations

import re
import socket
from pathlib import Path

from support.postoffice import PASSWORDS, PostOffice, by_recipient, flat, text
from test_repetition import CYCLE, ROOK_FOLLOWS_CANNON

from pbm import i18n
from pbm.config import load_config
from pbm.upkeep import doctor


def chase(office: PostOffice) -> int:
    """alice (Red) loses Board 101 by perpetual chase: a ruling to appeal against."""
    office.signup("alice", "bob")
    board = office.challenge(extra=f"-fen={ROOK_FOLLOWS_CANNON.replace(' ', '_')}")
    for ply, move in enumerate(CYCLE.split(), start=1):
        office.move(board, "alice" if ply % 2 else "bob", move)
    return board


def test_no_appeal_without_an_arbiter_and_the_doctor_says_so(tmp_path):
    office = PostOffice(tmp_path, admins=())
    board = chase(office)
    [refused] = office.send(f"xiangqi appeal {board} alice {PASSWORDS['alice']}", "It was not a chase.")
    assert "This server has no arbiter with an address ([admins] users), so nobody could hear an appeal" \
        in flat(refused)
    assert office.db.execute("SELECT count(*) FROM appeals").fetchone() == (0,)
    said: list[str] = []
    doctor.run(office.config, said.append)
    assert any("no [admins] users: nobody can adjudicate a game or hear an appeal" in line for line in said)


def test_each_appeal_is_dismissed_by_its_appellants_name(tmp_path):
    office = PostOffice(tmp_path, admins=("carol",))
    office.signup("carol")
    board = chase(office)
    office.send(f"xiangqi appeal {board} alice {PASSWORDS['alice']}", "Mine.", sender="alice@example.org")
    office.send(f"xiangqi appeal {board} bob {PASSWORDS['bob']}", "Mine too.", sender="bob@example.org")
    [refused] = office.send(f"xiangqi appeal {board} carol {PASSWORDS['carol']} dismiss", sender="carol@example.org")
    assert "dismiss and the appellant's user id may follow" in flat(refused)
    mails = by_recipient(office.send(f"xiangqi appeal {board} carol {PASSWORDS['carol']} dismiss bob",
                                     sender="carol@example.org"))
    assert "Arbiter carol dismissed the appeal of bob" in flat(mails["alice@example.org"])
    assert "the result stands (bob won (perpetual chase of the cannon on b7 by Red))." in flat(mails["bob@example.org"])
    assert office.db.execute("SELECT user_id, status FROM appeals ORDER BY user_id").fetchall() == [
        ("alice", "open"), ("bob", "dismissed")]


def test_a_new_password_mails_the_new_page_links(tmp_path):
    office = PostOffice(tmp_path)
    config = Path(office.config.path)
    config.write_text(config.read_text() + '[web]\nlisten = "127.0.0.1:8080"\nbase_url = "https://pbm.test"\n')
    office.config = load_config(config)
    office.signup("alice", "bob")
    board = office.challenge()
    [changed] = office.send(f"change password bob {PASSWORDS['bob']} N3w-secret", sender="bob@example.org")
    assert "The new reply addresses and page links of your running games" in flat(changed)
    [page] = re.findall(r"https://pbm\.test/g/\S+", text(changed))
    [shown] = office.send(f"xiangqi show {board}", sender="bob@example.org")
    assert page in text(shown)                      # the link the board mail gives now


def test_harmless_words_are_quoted_and_help_set_fits(tmp_path):
    office = PostOffice(tmp_path)
    office.signup("alice", "bob")
    [error] = office.send("xiangqi challenge --clock=2+1/2.5 --timeout=3 alice bob")
    assert "xiangqi challenge --clock=2+1/2.5 --timeout=3 alice bob" in text(error)
    for lang in ("en", "zh-Hans", "ko"):
        office.send(f"set alice {PASSWORDS['alice']} lang={lang}")
        [helped] = office.send("help set")
        assert max(map(i18n.width, text(helped).splitlines())) <= 78, text(helped)
        assert "lang=en|zh-Hans|zh-Hant|ko" in text(helped)       # a value list kept whole


def test_the_footers_words_and_the_glossed_setups_are_read(tmp_path):
    office = PostOffice(tmp_path)
    office.signup("alice", "bob")
    office.send(f"set bob {PASSWORDS['bob']} lang=zh-Hans notation=chinese", sender="bob@example.org")
    mails = by_recipient(office.send("janggi challenge alice bob"))
    mails = by_recipient(office.reply(mails["bob@example.org"], "setup 象马马象"))
    assert "bob（汉）选择了摆法 상마마상（象马马象）。" in flat(mails["bob@example.org"])
    mails = by_recipient(office.send(f"janggi move 101 alice {PASSWORDS['alice']} a4b4"))
    mails = by_recipient(office.reply(mails["bob@example.org"], "停着\n认输"))
    assert "2. 停着" in text(mails["bob@example.org"]) and "2. pass" in text(mails["alice@example.org"])
    assert "认输" in text(mails["alice@example.org"])         # a comment goes on as written
    over = by_recipient(office.reply(mails["bob@example.org"], "你好\n認輸"))
    assert over["alice@example.org"]["Subject"] == "Janggi Board 101 over: alice won (bob resigned) **"


def test_pbm_serve_on_a_taken_port_says_so_in_one_line(pbm_env):
    """As for the other start-up errors: one line, and EX_UNAVAILABLE (69), not a traceback."""
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        pbm_env.configure(smtp={"listen": f"127.0.0.1:{port}"})
        done = pbm_env.run("serve", timeout=60)
    said = done.stderr.decode()
    assert done.returncode == 69, said
    [line] = [line for line in said.splitlines() if line.startswith("pbm:")]     # beside the debug log
    assert "Traceback" not in said and f"('127.0.0.1', {port})" in line and "address already in use" in line
