"""Janggi by mail: the setup choice (challenge parameter, `setup` command, token reply), passes,
bikjang, points scoring and the final mails naming the reason -- end to end over SMTP to a real
`pbm serve` and through real `pbm deliver` processes, and in detail through the in-process post
office.  Every mail the server wrote is scanned for the passwords."""
from __future__ import annotations

import json
import re

import pytest
from support.postoffice import PASSWORDS as OFFICE_PASSWORDS
from support.postoffice import PostOffice, by_recipient, flat, text

import rules

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22"}

# Cho (alice) plays the setup "outer", Han (bob) chooses "left" after Cho's first move and passes
# with his first move; Cho's chariot gives check on d8 (Han may not pass then), and mates on d10.
MATE = ["a1a2", "pass", "a2d2", "f10f9", "d2d8", "e9e10", "d8d9", "e10f10", "d9d10"]
CHECK_PLY = 5           # after d2d8 Han is in check
HAN_SETUP_PLY = 1       # Han chooses after this many plies

pytestmark = pytest.mark.post_office("alice", "bob", "carol")


def test_the_mate_is_a_mate():
    game = rules.Game.new("janggi", {"cho": "outer"})
    for ply, move in enumerate(MATE):
        if ply == HAN_SETUP_PLY:
            game.setup("b", "left")
        game.play(move)
        assert game.in_check() == (ply + 1 == CHECK_PLY) or ply + 1 == len(MATE)
    assert (game.result, game.reason) == ("1-0", "checkmate")


def player(name: str) -> str:
    return f"{name}@example.org"


# --- end to end --------------------------------------------------------------------------------------

def test_a_whole_janggi_game_with_setups_and_a_pass_over_smtp(pbm_env, pbm_server):
    def send(user: str, subject: str, count: int) -> dict:
        return pbm_server.command(player(user), subject, count)

    answer = pbm_server.answer

    for user, password in PASSWORDS.items():
        send(user, f"signup {user} {password}", 1)
    mails = send("alice", "janggi challenge -setup=outer alice bob", 2)
    alice, bob = mails[player("alice")], mails[player("bob")]
    assert bob["Subject"] == "New Janggi Board 101 alice"
    for mail in (alice, bob):
        assert "Cho plays the setup outer, 상마마상 (sang-ma-ma-sang), EHHE from Cho's left." in flat(mail)
        assert " 1  cR--cE--cH--cG---+--cG--cH--cE--cR  1   Cho" in text(mail)
        assert "10  hR--hH--hE--hG---+--hG--hE--hH--hR 10   Han" in text(mail)
    assert "Before your first move you may choose your setup (now: inner)" in flat(bob)

    mails = send("alice", f"janggi move 101 alice {PASSWORDS['alice']} a1a2#1", 2)
    assert "alice played a1a2." in text(mails[player("bob")])
    # bob chooses his setup by answering his game mail; it is still his turn afterwards
    mails = answer(mails[player("bob")], "setup left", 2)
    for mail in mails.values():
        assert "bob (Han) chose the setup left, 상마상마 (sang-ma-sang-ma), EHEH from Han's left." \
            in flat(mail)
        assert "It is bob's turn." in text(mail)
    assert "10  hR--hH--hE--hG---+--hG--hH--hE--hR 10   Han" in text(mails[player("alice")])
    # bob's board is drawn from his side, turned: files from I to A, his pieces at the bottom
    assert "10  hR--hE--hH--hG---+--hG--hE--hH--hR 10   Han" in text(mails[player("bob")])
    assert text(mails[player("bob")]).index(" 1  cR") < text(mails[player("bob")]).index("10  hR")
    latest = mails

    [error] = send("alice", f"janggi setup 101 alice {PASSWORDS['alice']} inner", 1).values()
    assert error["Subject"] == "Janggi Board 101 Error"
    assert "janggi setup 101 alice ******** inner" in text(error)
    assert "Cho has made its first move; the setup is chosen before it." in flat(error)
    [error] = send("bob", f"janggi setup 101 bob {PASSWORDS['bob']} zigzag", 1).values()
    assert "'zigzag' is not one of the setups; choose one of: 1 inner: 마상상마 (ma-sang-sang-ma)" \
        in flat(error)
    assert "4 outer: 상마마상 (sang-ma-ma-sang), EHHE" in flat(error)

    players = ["alice", "bob"]
    for ply, move in enumerate(MATE[1:], start=2):
        mover, other = players[(ply - 1) % 2], players[ply % 2]
        if mover == "alice":
            mails = send("alice", f"janggi move 101 alice {PASSWORDS['alice']} {move}#{ply}", 2)
        else:
            mails = answer(latest[player("bob")], move, 2)
        latest = mails
        theirs = text(mails[player(other)])
        if move == "pass":
            assert "bob passed." in theirs and "  2. pass" in theirs
            [error] = send("bob", f"janggi setup 101 bob {PASSWORDS['bob']} outer", 1).values()
            assert "Han has made its first move; the setup is chosen before it." in flat(error)
        if ply == CHECK_PLY:
            assert "It is bob's turn.\nbob is in check." in theirs
            assert "Other answers: resign, propose (a draw), accept, reject, undo.\n" in theirs
            [error] = answer(mails[player("bob")], "pass", 1).values()
            assert "pass is not a legal move: you may not pass while your king is in check." \
                in flat(error)
            assert "Your reply\n\n    pass\n\nwas not carried out" in text(error)
    final = latest[player("bob")]
    assert final["Subject"] == "Janggi Board 101 over: alice won (checkmate)"
    assert "Game won by alice (checkmate)." in text(final)
    assert "alice played d9d10." in text(final)
    assert re.search(r"  9\. d9d10\n", text(final))
    [(status, result, reason, params, start)] = pbm_env.query(
        "SELECT status, result, reason, params, start_fen FROM games")
    assert (status, result, reason) == ("finished", "1-0", "checkmate")
    assert json.loads(params) == {"cho": "outer", "han": "left"}
    assert start == "rnba1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ANBR w - - 0 1"
    assert pbm_env.query("SELECT kind, user_id, detail FROM events WHERE kind = 'setup'") == [
        ("setup", "bob", "left")]
    _assert_no_password(pbm_env)


def test_a_points_game_ends_by_two_passes_with_the_count_through_pbm_deliver(pbm_env):
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.mail("signup bob Hunter22", sender=player("bob"))
    # bob challenges as USER2: he plays Han, and -setup is his own side's choice
    pbm_env.mail("janggi challenge -points -setup=4 alice bob", sender=player("bob"))
    pbm_env.replies()
    pbm_env.mail("janggi move 101 alice Sw0rdfish pass")
    pbm_env.mail("janggi move 101 bob Hunter22 pass", sender=player("bob"))
    mails = pbm_env.replies()
    assert len(mails) == 4
    final = by_recipient(mails[2:])
    for mail in final.values():
        assert "Game won by bob (two passes in a row: decided on points, Cho 72 - Han 73.5)." \
            in flat(mail)
        assert re.search(r"\n     alice \(Cho\) +bob \(Han\)\n  1\. pass +2\. pass\n", text(mail))
    assert final[player("alice")]["Subject"] == ("Janggi Board 101 over: bob won (two passes in a row: "
                                                 "decided on points, Cho 72 - Han 73.5)")
    [(result, winner, params)] = pbm_env.query("SELECT result, winner, params FROM games")
    assert (result, winner, json.loads(params)) == ("0-1", "bob", {"han": "outer", "points": True})
    _assert_no_password(pbm_env)


def _assert_no_password(pbm_env) -> None:
    for path in pbm_env.outbox_files():
        for password in PASSWORDS.values():
            assert password.encode() not in path.read_bytes(), path


# --- in detail, through the in-process post office ----------------------------------------------------


def janggi(post: PostOffice, extra: str = "", first: str = "alice", second: str = "bob",
           sender: str = "alice") -> list:
    return post.send(f"janggi challenge {extra} {first} {second}", sender=player(sender))


def move(post: PostOffice, user: str, what: str, board: int = 101, game: str = "janggi") -> list:
    return post.send(f"{game} move {board} {user} {OFFICE_PASSWORDS[user]} {what}", sender=player(user))


def setup(post: PostOffice, user: str, what: str, board: int = 101, game: str = "janggi") -> list:
    return post.send(f"{game} setup {board} {user} {OFFICE_PASSWORDS[user]} {what}", sender=player(user))


def test_help_has_the_rules_the_setups_and_the_commands(post):
    [page] = post.send("janggi help")
    assert page["Subject"] == "Janggi help"
    body, words = text(page), flat(page)
    assert "10  hR--hH--hE--hG---+--hG--hE--hH--hR 10   Han" in body
    assert "K king, G guard (advisor), E elephant, H horse" in words
    for line in (" 1. inner  마상상마 ma-sang-sang-ma  HEEH   back row: R H E G . G E H R",
                 " 2. left   상마상마 sang-ma-sang-ma  EHEH   back row: R E H G . G E H R",
                 " 3. right  마상마상 ma-sang-ma-sang  HEHE   back row: R H E G . G H E R",
                 " 4. outer  상마마상 sang-ma-ma-sang  EHHE   back row: R E H G . G H E R"):
        assert line in body
    assert "elephants beside the chariots, horses inside (both swapped)" in words
    assert "janggi setup BOARD USERID PASSWORD ARRANGEMENT" in body
    assert "Instead of moving you may pass: send \"pass\" as your move." in words
    assert "A pass while the Kings face each other ends the game." in words
    assert "Chariot 13, Cannon 7, Horse 5, Elephant 3, Advisor 3, Soldier 2" in words
    assert "-points tournament scoring" in words and "-setup=ARRANGEMENT your own setup" in words
    [page] = post.send("help setup")
    assert "GAME setup BOARD USERID PASSWORD ARRANGEMENT" in flat(page)
    assert "a pass counts as one" in flat(page)
    [page] = post.send("help reply")
    assert "setup ARRANGEMENT choose how your horses and elephants stand" in flat(page)


def test_a_challenger_chooses_only_their_own_setup(post):
    [error] = janggi(post, "-han=outer")
    assert error["Subject"] == "Janggi error"
    assert ("-han chooses Han's setup, and Han is your opponent's side: each player chooses their "
            "own, before their first move. Choose yours with -setup=ARRANGEMENT.") in flat(error)
    [error] = janggi(post, "-setup")
    assert "-setup needs an arrangement: -setup=ARRANGEMENT (send \"janggi help\" for the list)." \
        in flat(error)
    [error] = janggi(post, "-setup=zigzag")
    assert "'zigzag' is not one of the setups; choose one of: 1 inner" in flat(error)
    [error] = janggi(post, "-setup=outer -fen=4k4/9/9/9/9/9/9/9/4K4/9")
    assert "began from a position of its own, not the standard start" in flat(error)
    [error] = janggi(post, "-cho=outer -fen=4k4/9/9/9/9/9/9/9/4K4/9")
    assert "a setup choice (cho=) arranges the standard start" in flat(error)
    [error] = janggi(post, "-setup=outer -cho=left")
    assert "-setup and -cho both choose your setup; give only one of them." in flat(error)
    [error] = post.send("xiangqi challenge -setup=outer alice bob", sender=player("alice"))
    assert "Xiangqi has no setup choice." in flat(error)
    [error] = janggi(post, "-colour=blue")
    assert "janggi has no parameter colour" in flat(error)
    assert "Parameters every game takes: -fen=FEN (start from this position), -unrated" in flat(error)
    assert "-setup=ARRANGEMENT (your own setup, where the game has a choice (Janggi))" in flat(error)
    assert post.db.execute("SELECT count(*) FROM games").fetchone() == (0,)
    # the rules core's own -cho=, for the challenger's side, and the setup's other names
    mails = by_recipient(janggi(post, "-cho=ma-sang-ma-sang"))
    assert "Cho plays the setup right, 마상마상 (ma-sang-ma-sang), HEHE from Cho's left." \
        in flat(mails[player("bob")])
    mails = by_recipient(janggi(post, "-setup=상마상마", "carol", "bob", sender="bob"))
    assert "Han plays the setup left, 상마상마 (sang-ma-sang-ma), EHEH from Han's left." \
        in flat(mails[player("carol")])
    stored = post.db.execute("SELECT params FROM games ORDER BY id").fetchall()
    assert [json.loads(p) for (p,) in stored] == [{"cho": "right"}, {"han": "left"}]


def test_the_setup_command(post):
    janggi(post)
    post.send("xiangqi challenge alice bob", sender=player("alice"))
    [error] = setup(post, "carol", "outer")
    assert "carol does not play on Janggi Board 101 (alice and bob do)" in flat(error)
    [error] = setup(post, "alice", "inner")
    assert "You already play the setup inner, 마상상마 (ma-sang-sang-ma), HEEH from Cho's left; " \
           "nothing was changed." in flat(error)
    [error] = setup(post, "alice", "outer", game="xiangqi")
    assert error["Subject"] == "Xiangqi Board 101 Error" and "Xiangqi has no setup choice." in flat(error)
    # Han may choose before Cho has moved; two words, a number and the letters all name a setup
    mails = by_recipient(setup(post, "bob", "left swapped"))
    assert "bob (Han) chose the setup left" in flat(mails[player("alice")])
    assert mails[player("alice")]["Subject"] == "Janggi Board 101 alice"
    mails = by_recipient(setup(post, "alice", "3"))
    assert "alice (Cho) chose the setup right" in flat(mails[player("bob")])
    setup(post, "alice", "ehhe")
    [page] = post.send("janggi status 101")
    assert "bob chose the setup left" in flat(page) and "alice chose the setup outer" in flat(page)
    assert "0 moves so far." in flat(page)
    [(params, start)] = post.db.execute("SELECT params, start_fen FROM games WHERE variant = 'janggi'")
    assert json.loads(params) == {"cho": "outer", "han": "left"}
    assert start == "rnba1anbr/4k4/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/4K4/RBNA1ANBR w - - 0 1"
    # the stored setup is the game: the moves of both sides are judged on it
    [error] = move(post, "alice", "b1a3")
    assert "b1a3 is not a legal move" in flat(error)
    mails = by_recipient(move(post, "alice", "c1d3"))
    assert "alice played c1d3." in flat(mails[player("bob")])
    move(post, "alice", "resign")
    [error] = setup(post, "bob", "inner")
    assert "Janggi Board 101 is over" in flat(error)


def test_a_setup_can_be_chosen_again_after_an_undo(post):
    janggi(post)
    move(post, "alice", "a1a2")
    setup(post, "bob", "outer")
    move(post, "alice", "undo")
    move(post, "bob", "accept")
    mails = by_recipient(setup(post, "alice", "outer"))
    assert "alice (Cho) chose the setup outer" in flat(mails[player("bob")])
    assert " 1  cR--cE--cH--cG---+--cG--cH--cE--cR  1   Cho" in text(mails[player("bob")])


def test_bikjang_must_be_broken_and_a_pass_then_ends_the_game(post):
    janggi(post)
    move(post, "alice", "e2d2")
    mails = by_recipient(move(post, "bob", "e9d9"))
    assert "Other answers: resign, propose (a draw), accept, reject, undo, pass." \
        in text(mails[player("alice")])
    assert ("The kings face each other (bikjang): alice must break the facing or pass; a pass ends "
            "the game.") in flat(mails[player("alice")])
    [error] = move(post, "alice", "a1a2")
    assert "the kings face each other (bikjang): break the facing or pass" in flat(error)
    mails = by_recipient(move(post, "alice", "pass"))
    assert "Draw (bikjang)." in flat(mails[player("bob")])
    [(result, reason)] = post.db.execute("SELECT result, reason FROM games").fetchall()
    assert (result, reason) == ("1/2-1/2", "bikjang")


def test_bikjang_with_points_goes_to_the_side_with_more(post):
    janggi(post, "-points")
    move(post, "alice", "e2d2")
    move(post, "bob", "e9d9")
    mails = by_recipient(move(post, "alice", "pass"))
    assert "Game won by bob (bikjang: decided on points, Cho 72 - Han 73.5)." in flat(mails[player("alice")])
    [page] = post.send("janggi history")
    assert "won by bob: bikjang: decided on points, Cho 72 - Han 73.5" in flat(page)


def test_two_passes_without_points_are_a_draw_and_a_pass_can_be_queued(post):
    janggi(post)
    [ok] = post.send("janggi queue 101 bob Hunter22 pass", sender=player("bob"))
    assert "Queued pass on Janggi Board 101" in flat(ok)
    mails = by_recipient(move(post, "alice", "pass"))
    assert "bob passed from the queue (Auto)." in flat(mails[player("alice")])
    assert "Draw (two passes in a row)." in flat(mails[player("alice")])
    post.send("xiangqi challenge alice bob", sender=player("alice"))
    [error] = move(post, "alice", "pass", game="xiangqi")
    assert "'pass' is not a move I can read" in flat(error)


def test_the_player_is_warned_when_a_pass_would_end_the_game_and_how_it_would_score(post):
    janggi(post, "-points")
    mails = by_recipient(move(post, "alice", "pass"))
    assert ("Your opponent passed: passing now ends the game, as a win on points for Han, "
            "Cho 72 - Han 73.5.") in flat(mails[player("bob")])
    assert "passing now ends" not in flat(mails[player("alice")])
    move(post, "bob", "a7a6")
    move(post, "alice", "e2d2")
    mails = by_recipient(move(post, "bob", "e9d9"))                # bikjang
    said = flat(mails[player("alice")])     # the status line says bikjang, the warning what a pass does
    assert "The kings face each other (bikjang): alice must break the facing or pass" in said
    assert "Passing now ends the game, as a win on points for Han" in said and said.count("(bikjang)") == 1
