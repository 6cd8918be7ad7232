"""Sizes: what a player writes is cut to `[server] comment_chars` (4,000) with a
note -- a comment, a chat, an appeal -- a record in a `-record` challenge's body is no comment; a
page and a served record stay under 1 MB however long the chat, and a served record is made once.
Real `pbm deliver` for the mails, the post office (real bytes, real SQLite) where many mails fill a
game, a real `pbm web` for the pages."""
from __future__ import annotations

import re
import subprocess
import urllib.request

from support.postoffice import PASSWORDS, PostOffice, by_recipient, flat, text
from support.processes import PBM, free_port, pbm_environment, wait_until

from pbm.web import pages

MB = 1 << 20
CUT = "more characters cut: this server passes on at most 4000 characters of a comment"


def test_a_forged_megabyte_challenge_body_is_a_small_mail(pbm_env):
    for user in ("alice", "bob"):
        pbm_env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    pbm_env.replies()
    pbm_env.mail("xiangqi challenge alice bob", "spam " * 200_000)      # 1 MB, from alice's address
    bob = by_recipient(pbm_env.replies())["bob@example.org"]
    assert len(bytes(bob)) < 60_000                         # was 2.4 MB
    assert f"[{999_999 - 4000} {CUT}]" in flat(bob), flat(bob)[-3000:]
    pbm_env.mail("xiangqi chat 101 bob " + PASSWORDS["bob"], "x" * 50_000, sender="bob@example.org")
    alice = by_recipient(pbm_env.replies())["alice@example.org"]
    assert f"[46000 {CUT}]" in flat(alice) and len(bytes(alice)) < 30_000


def test_a_record_in_the_body_is_no_comment(pbm_env):
    for user in ("alice", "bob"):
        pbm_env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    pbm_env.replies()
    pbm_env.mail("xiangqi challenge -record alice bob", "[Event \"x\"]\n\n1. h3e3 h10g8 2. h1g3 {fine}")
    bob = by_recipient(pbm_env.replies())["bob@example.org"]
    assert "The game starts from the position after the 3 moves of the record." in flat(bob)
    assert "writes:" not in text(bob) and "Event" not in text(bob)


def test_an_appeal_is_cut_too(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob", "carol")
    post.send(f"signup root {PASSWORDS['root']}", sender="root@example.org")
    board = post.challenge()
    for ply, move in enumerate(["h3h4", "h8h7", "h4h3", "h7h8"] * 2):
        post.move(board, ("alice", "bob")[ply % 2], move)
    mails = post.send(f"xiangqi appeal {board} alice {PASSWORDS['alice']}", "x " * 2_500_000)
    arbiter = by_recipient(mails)["root@example.org"]
    assert len(bytes(arbiter)) < 100_000                    # was 5.1 MB
    assert CUT in flat(arbiter)


def test_a_long_chat_keeps_the_page_and_the_record_small(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    board = post.challenge()
    for i in range(45):                                     # 45 chats of 4,000 characters, and more
        post.send(f"xiangqi chat {board} alice {PASSWORDS['alice']}", f"{i:02d} " + "&" * 9000)
    port = free_port()
    config = tmp_path / "pbm.toml"
    config.write_text(config.read_text() + f'[web]\nlisten = "127.0.0.1:{port}"\n'
                                           f'base_url = "http://127.0.0.1:{port}"\n')
    web = subprocess.Popen([*PBM, "--config", str(config), "web"], env=pbm_environment(),
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        page_url = f"http://127.0.0.1:{port}/p/xiangqi-{board}"
        assert wait_until(lambda: _fetched(page_url), 30)
        page = urllib.request.urlopen(page_url, timeout=30).read()
        pgn = urllib.request.urlopen(page_url + "/record.pgn", timeout=30).read()
    finally:
        web.terminate()
        web.wait(30)
    assert len(page) < MB and len(pgn) < MB
    assert re.search(rb"The \d+ earliest comments are not shown here, to keep the page small.", page)
    assert b"44 &amp;&amp;" in page and b"00 &amp;" not in page          # the latest are shown
    assert re.search(rb"44\s+&&&", pgn) and not re.search(rb"00\s+&&&", pgn)


def test_a_served_record_is_made_once(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    board = post.challenge()
    who = pages.public(post.db, f"xiangqi-{board}", "")
    first = pages.record(post.db, post.config, who, "pgn", False)
    assert pages.record(post.db, post.config, who, "pgn", False) is first     # kept, not made again
    post.send(f"xiangqi chat {board} alice {PASSWORDS['alice']}", "Hello")
    who = pages.public(post.db, f"xiangqi-{board}", "")
    again = pages.record(post.db, post.config, who, "pgn", False)
    assert again is not first and b"Hello" in again[0]          # a new comment: made anew


def _fetched(url: str) -> bool:
    try:
        urllib.request.urlopen(url, timeout=5).read()
        return True
    except OSError:
        return False
