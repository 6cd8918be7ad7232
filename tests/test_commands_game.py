"""Game commands over real mail bytes: challenge, moves, the in-game verbs, premoves, queries,
observers, admin rulings, timers -- and every error path of mail.md.  Every mail the server sends
in these tests is scanned for the passwords used."""
from __future__ import annotations

import re

import pytest
from support.postoffice import by_recipient, flat, text

import rules

# A short game to checkmate from the start position (double cannon mate), checked below against
# the rules core: Red's central cannon takes e7, the second cannon comes behind it, mate.
MATE = ["h3e3", "a10a9", "e3e7", "a9a10", "b3b5", "a10a9", "b5e5"]


pytestmark = pytest.mark.post_office("alice", "bob", "carol", "root")


def player(name: str) -> str:
    return f"{name}@example.org"


def test_the_mate_is_a_mate():
    game = rules.Game.new("xiangqi")
    for move in MATE:
        game.play(move)
    assert (game.result, game.reason) == ("1-0", "checkmate")


# --- challenge ---------------------------------------------------------------------------------------

def test_challenge_starts_a_game_for_both(post):
    mails = by_recipient(post.send("xiangqi challenge alice bob", "Good luck!", sender=player("alice")))
    alice, bob = mails[player("alice")], mails[player("bob")]
    assert alice["Subject"] == "New Xiangqi Board 101 alice"
    assert bob["Subject"] == "New Xiangqi Board 101 alice **"
    assert alice["Auto-Submitted"] == "auto-replied" and bob["Auto-Submitted"] == "auto-generated"
    assert "<xiangqi-101@pbm.test>" in alice["References"] and "<xiangqi-101@pbm.test>" in bob["References"]
    assert re.fullmatch(r"pbm\+xiangqi-101-alice-[a-z2-7]{8}@pbm\.test", alice["Reply-To"])
    assert re.fullmatch(r"pbm\+xiangqi-101-bob-[a-z2-7]{8}@pbm\.test", bob["Reply-To"])
    for mail in (alice, bob):
        body = text(mail)
        assert "Summary of Xiangqi Board 101" in body
        assert "Red:   alice\nBlack: bob" in body
        assert "It is alice's turn." in body
        assert "10  bR--bH--bE--bG--bK--bG--bE--bH--bR 10   Black" in body
    assert "alice writes:\n\nGood luck!" in text(bob) and "Good luck" not in text(alice)
    assert post.challenge("bob", "carol") == 102


def test_challenge_is_accepted_only_from_a_players_address(post):
    [error] = post.send("xiangqi challenge alice bob", sender=player("carol"))
    assert error["Subject"] == "Xiangqi error"
    assert "only from a mail address registered to alice or bob, and carol@example.org is not" in flat(error)
    [error] = post.send("xiangqi challenge alice dave", sender=player("alice"))
    assert "There is no user dave here" in flat(error)
    [error] = post.send("xiangqi challenge alice alice", sender=player("alice"))
    assert "cannot challenge themselves" in flat(error)
    [error] = post.send("xiangqi challenge alice", sender=player("alice"))
    assert "challenge takes 2 to 3 words after the verb, and your command has 1" in flat(error)
    assert "xiangqi challenge [-param...] [--option=DAYS...] USER1 USER2" in flat(error)
    assert post.db.execute("SELECT count(*) FROM games").fetchone() == (0,)


def test_challenge_from_a_fen(post):
    fen = "3k5/9/9/9/9/9/9/9/4R4/4K4_w"           # spaces as _, fields after the side left out
    mails = post.send(f"xiangqi challenge -fen={fen.replace(' ', '_')} alice bob", sender=player("alice"))
    assert "The game is not rated." in flat(mails[0])
    placement_only = "3k5/9/9/9/9/9/9/9/4R4/4K4"
    mails = post.send(f"xiangqi challenge bob -fen={placement_only} alice", sender=player("alice"))
    assert mails[0]["Subject"] == "New Xiangqi Board 102 bob"
    [(fen_stored, rated)] = post.db.execute("SELECT start_fen, rated FROM games WHERE board = 102").fetchall()
    assert fen_stored.startswith("3k5/9/9/9/9/9/9/9/4R4/4K4 w") and rated == 0


def test_check_is_announced(post):
    post.send("xiangqi challenge -fen=3k5/4a4/9/9/9/9/9/9/4R4/4K4 alice bob", sender=player("alice"))
    mails = by_recipient(post.move(101, "alice", "e2d2"))
    assert "It is bob's turn.\nbob is in check." in text(mails[player("bob")])


def test_challenge_with_black_to_move_gives_user1_black(post):
    post.send("xiangqi challenge -fen=3k5/9/9/9/9/9/9/9/4R4/4K4_b alice bob", sender=player("alice"))
    [mine, _] = post.move(101, "alice", "d10d9")
    assert "Black: alice" in flat(mine) and "Red:   bob" in text(mine)
    assert "It is bob's turn." in flat(mine)


@pytest.mark.parametrize("extra, problem", [
    ("-fen=xyz", "-fen: the placement has 1 ranks"),
    ("-fen", "-fen needs a position"),
    ("-colour=red", "xiangqi takes no parameters (got -colour). Parameters every game takes: -fen"),
    ("--speed=3", "--speed is not a game option. The options are: --timeout=DAYS"),
    ("--timeout=soon", "--timeout=soon is not a number of days"),
])
def test_challenge_parameter_errors(post, extra, problem):
    [error] = post.send(f"xiangqi challenge {extra} alice bob", sender=player("alice"))
    assert problem in error["Subject"] + flat(error)
    assert post.db.execute("SELECT count(*) FROM games").fetchone() == (0,)


def test_parameters_only_go_with_challenge(post):
    board = post.challenge()
    [error] = post.send(f"xiangqi move {board} alice Sw0rdfish h3e3 -fen=x")
    assert "move takes no -parameters or --options; only challenge and seek do" in flat(error)


# --- moves ---------------------------------------------------------------------------------------------

def test_full_game_to_checkmate_by_mail(post):
    board = post.challenge()
    players = ["alice", "bob"]
    for ply, move in enumerate(MATE):
        mover, other = players[ply % 2], players[1 - ply % 2]
        mails = by_recipient(post.move(board, mover, f"{move}#{ply + 1}", body=f"comment {ply}"))
        mine, theirs = mails[player(mover)], mails[player(other)]
        if ply < len(MATE) - 1:
            assert mine["Subject"] == f"Xiangqi Board {board} {other}"
            assert theirs["Subject"] == f"Xiangqi Board {board} {other} **"
            assert f"It is {other}'s turn." in flat(theirs)
        assert f"{mover} writes:\n\ncomment {ply}" in text(theirs)
    final = text(theirs)
    assert "Game won by alice (checkmate)." in final
    # the final mails say the game is over, so no "my turn" filter files them as a turn
    assert mine["Subject"] == theirs["Subject"].removesuffix(" **") == \
        f"Xiangqi Board {board} over: alice won (checkmate)"
    # the move list: one column per player, global move numbers, coordinates and WXF
    assert re.search(r"  1\. h3e3   C2=5 +  2\. a10a9  R1\+1", final)
    assert re.search(r"  7\. b5e5   C8=5\n", final)
    assert " 5   +---+---+---+--rC---+---+---+---+  5" in final
    [error] = post.move(board, "bob", "a9a8")
    assert "Xiangqi Board 101 is over (won by alice: checkmate)" in flat(error)
    # an empty reply to a final mail is a reply, not the command "xiangqi Board 101 over: ..."
    [error] = post.reply(mine, "")
    assert "Your reply had no move in it" in flat(error)
    assert "Xiangqi Board 101 over: alice won (checkmate) was not carried out" in flat(error)
    [table] = post.send("xiangqi standings")
    assert re.search(r"1  alice +1741\? ±793 +1 +1 +0 +0", text(table))
    assert re.search(r"2  bob +1259\? ±793 +1 +0 +1 +0", text(table))


def test_move_errors(post):
    board = post.challenge()
    [error] = post.move(board, "bob", "h10g8")
    assert error["Subject"] == "Xiangqi Board 101 Error"
    assert "It is not your move on Xiangqi Board 101: it is alice's turn." in flat(error)
    [error] = post.move(board, "alice", "e3e5")
    assert "e3e5 is not a legal move: there is no piece on e3" in flat(error)
    assert "xiangqi move 101 alice ******** e3e5" in flat(error)
    [error] = post.move(board, "alice", "zz9")
    assert "'zz9' is not a move I can read" in flat(error)
    [error] = post.move(board, "alice", "h3e3#2")
    assert "Your move h3e3 was received as move #2, but the next move on Xiangqi Board 101 is #1" \
        in flat(error)
    [error] = post.move(board, "carol", "h3e3")
    assert "carol does not play on Xiangqi Board 101 (alice and bob do)" in flat(error)
    [error] = post.move(999, "alice", "h3e3")
    assert error["Subject"] == "Xiangqi error" and "There is no Xiangqi Board 999" in flat(error)
    [error] = post.send(f"xiangqi move x{board} alice Sw0rdfish h3e3")
    assert "is not a board number" in flat(error)
    [error] = post.send(f"xiangqi move {board} alice WRONG-pw h3e3")
    assert "Invalid password for alice" in flat(error)
    assert post.db.execute("SELECT count(*) FROM moves").fetchone() == (0,)


def test_aliases_and_case(post):
    board = post.challenge()
    [mine, _] = post.send(f"XiangQi MVOE {board} ALICE Sw0rdfish H3-E3", sender=player("alice"))
    assert "alice played h3e3 (C2=5)." in flat(mine)
    [mine, _] = post.send(f"xiangqi board {board} bob Hunter22 H8+7 **", sender=player("bob"))
    assert "bob played h10g8 (H8+7)." in flat(mine)


def test_subject_with_re_prefix_and_stars(post):
    board = post.challenge()
    [mine, _] = post.send(f"Re: xiangqi move {board} alice Sw0rdfish h3e3 **")
    assert "alice played h3e3" in flat(mine)


# --- reply with just the move --------------------------------------------------------------------------

def test_token_replies_play_moves_and_verbs(post):
    mails = by_recipient(post.send("xiangqi challenge alice bob", sender=player("alice")))
    # alice answers her "New" mail with just the move (quoted text below it is dropped)
    replies = by_recipient(post.reply(mails[player("alice")], "h3e3\nMy favourite opening.\n\n> old text"))
    assert "alice played h3e3 (C2=5)." in flat(replies[player("alice")])
    assert "alice writes:\n\nMy favourite opening." in text(replies[player("bob")])
    # bob answers in the subject, with an empty body
    replies = by_recipient(post.reply(replies[player("bob")], "", subject="Re: H8+7"))
    assert "bob played h10g8 (H8+7)." in flat(replies[player("bob")])
    # an in-game verb, and a move with its number
    replies = by_recipient(post.reply(replies[player("alice")], "propose"))
    assert "alice has proposed a draw." in flat(replies[player("bob")])
    replies = by_recipient(post.reply(replies[player("bob")], "reject"))
    replies = by_recipient(post.reply(replies[player("alice")], "h1g3#3"))
    assert "alice played h1g3 (H2+3)." in flat(replies[player("alice")])
    # a reply without a move, and a reply from a stranger's copy with a forged token
    [error] = post.reply(replies[player("bob")], "", sender=player("bob"))
    assert error["Subject"] == "Xiangqi Board 101 Error"
    assert "Your reply had no move in it" in flat(error)
    forged = replies[player("bob")]["Reply-To"][:-10] + "aaaaaaaa@pbm.test"
    [error] = post.send("Re: x", "b10c8", sender=player("carol"), to=forged)
    assert "The address you replied to, for Xiangqi Board 101, is not one this server gave out" \
        in flat(error)
    assert error["Subject"] == "Xiangqi Board 101 Error"
    # not bob's turn: a player's token does not move for the other
    [error] = post.reply(replies[player("alice")], "a4a5")
    assert "It is not your move on Xiangqi Board 101: it is bob's turn." in flat(error)
    assert "Your reply\n\n    a4a5\n\nwas not carried out" in text(error)
    assert "A reply to a game mail holds one of" not in text(error)
    assert "MOVE[#N]" in flat(error)


def test_an_error_mail_can_be_answered_with_the_corrected_move(post):
    board = post.challenge()
    [error] = post.move(board, "alice", "h3e4")
    assert error["Subject"] == "Xiangqi Board 101 Error" and "alice" in error["Reply-To"]
    mails = by_recipient(post.reply(error, "h3e3"))
    assert "alice played h3e3 (C2=5)." in text(mails[player("bob")])
    # a failed password proves nothing: no token for whoever sent it
    [error] = post.send(f"xiangqi move {board} bob wrong-pw h10g8", sender=player("carol"))
    assert error["Reply-To"] is None


def test_a_whole_command_sent_to_a_token_address_is_read_as_a_command(post):
    mails = by_recipient(post.send("xiangqi challenge alice bob", sender=player("alice")))
    [page] = post.reply(mails[player("alice")], "xiangqi status 101")
    assert "It is alice's turn." in flat(page)


def test_game_subject_sent_to_the_main_address_is_explained(post):
    post.challenge()
    [error] = post.send("Re: Xiangqi Board 101 bob", "h3e3")
    assert "sent to the server's main address instead of the reply address" in flat(error)


# --- resign, draw, undo ----------------------------------------------------------------------------------

def test_resign_before_the_first_move_declines(post):
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    mails = by_recipient(post.send(f"xiangqi resign {board} bob Hunter22", sender=player("bob")))
    declined = flat(mails[player("alice")])
    assert "Game declined (bob declined the challenge); it was deleted and is not rated." in declined
    [listing] = post.send("xiangqi games alice inactive")
    assert "(none)" in flat(listing)
    [table] = post.send("xiangqi standings")
    assert "No rated game has finished yet." in flat(table)
    assert post.challenge() == 102          # the number is not given again


def test_resign_after_moving_loses(post):
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    post.move(board, "bob", "h10g8")
    mails = by_recipient(post.move(board, "alice", "resign"))
    assert "Game won by bob (alice resigned)." in flat(mails[player("bob")])
    [(result, winner)] = post.db.execute("SELECT result, winner FROM games").fetchall()
    assert (result, winner) == ("0-1", "bob")


def test_draw_offer_accepted(post):
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    post.move(board, "bob", "h10g8")            # bob takes up the challenge: the game is rated
    post.move(board, "alice", "h1g3")
    mails = by_recipient(post.move(board, "alice", "propose"))
    assert "alice has proposed a draw." in flat(mails[player("bob")])
    [error] = post.move(board, "alice", "accept")
    assert "You cannot accept your own proposal; bob must answer it." in flat(error)
    mails = by_recipient(post.move(board, "bob", "accept"))
    assert "Draw (by agreement)." in flat(mails[player("alice")])
    [table] = post.send("xiangqi standings")
    assert re.search(r"alice +1500\? ±793 +1 +0 +0 +1", text(table))


def test_a_move_declines_a_draw_offer(post):
    board = post.challenge()
    post.move(board, "alice", "propose")
    post.move(board, "alice", "h3e3")           # her own move keeps her offer
    mails = by_recipient(post.move(board, "bob", "h10g8"))
    assert "alice's draw offer lapsed with this move." in flat(mails[player("alice")])
    [error] = post.move(board, "bob", "accept")
    assert "There is nothing to accept" in flat(error)


def test_undo_with_accept(post):
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    post.move(board, "bob", "h10g8")
    post.move(board, "alice", "e3e7")            # a blunder: the cannon can be taken
    mails = by_recipient(post.move(board, "alice", "undo"))
    assert "alice has asked to take back their last move." in flat(mails[player("bob")])
    [error] = post.move(board, "bob", "propose")
    assert "alice's request to take back a move is pending: accept or reject it first." in flat(error)
    mails = by_recipient(post.move(board, "bob", "accept"))
    assert "bob agreed to take back e3e7 at alice's request." in flat(mails[player("alice")])
    assert "It is alice's turn." in flat(mails[player("alice")])
    assert post.db.execute("SELECT count(*) FROM moves").fetchone() == (2,)
    post.move(board, "alice", "h1g3")
    # asking on one's own turn takes back one's last move and the answer to it
    post.move(board, "bob", "i10h10")
    post.move(board, "bob", "undo")
    mails = by_recipient(post.move(board, "alice", "reject"))
    assert "alice rejected bob's request to take back a move." in flat(mails[player("bob")])
    post.move(board, "alice", "undo")
    post.move(board, "bob", "accept")
    assert [m for (m,) in post.db.execute("SELECT move FROM moves ORDER BY ply")] == ["h3e3", "h10g8"]


def test_undo_before_moving_is_refused(post):
    board = post.challenge()
    [error] = post.move(board, "alice", "undo")
    assert "You have made no move yet" in flat(error)


# --- premoves ---------------------------------------------------------------------------------------------

def test_queued_moves_are_played_when_legal(post):
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    [ok] = post.send(f"xiangqi queue {board} alice Sw0rdfish h1g3", sender=player("alice"))
    assert "Queued h1g3 on Xiangqi Board 101" in flat(ok)
    post.send(f"xiangqi qmove {board} alice Sw0rdfish i1h1", sender=player("alice"))
    mails = by_recipient(post.move(board, "bob", "h10g8"))
    body = text(mails[player("bob")])
    assert "alice played h1g3 (H2+3) from the queue (Auto)." in body
    assert "  3. h1g3   H2+3 (Auto)" in body
    assert "It is bob's turn." in body
    # alice's second premove waited for her next turn
    mails = by_recipient(post.move(board, "bob", "i10h10"))
    assert re.search(r"alice played i1h1 \(\S+\) from the queue \(Auto\)\.", text(mails[player("bob")]))
    assert "  5. i1h1" in text(mails[player("bob")])
    assert post.db.execute("SELECT count(*) FROM premoves").fetchone() == (0,)
    assert [a for (a,) in post.db.execute("SELECT auto FROM moves ORDER BY ply")] == [0, 0, 1, 0, 1]


def test_an_illegal_premove_is_dropped_and_the_player_told(post):
    board = post.challenge()
    post.send(f"xiangqi queue {board} bob Hunter22 e7e6", sender=player("bob"))
    post.send(f"xiangqi queue {board} bob Hunter22 e6e5", sender=player("bob"))
    mails = by_recipient(post.move(board, "alice", "h3e3"))
    assert "bob played e7e6" in flat(mails[player("alice")])
    mails = by_recipient(post.move(board, "alice", "e3e6"))       # takes the soldier on e6
    assert "Your queued move e6e5 was not played: e6e5 is not a legal move" in flat(mails[player("bob")])
    assert "queued move" not in text(mails[player("alice")])
    assert "It is bob's turn." in flat(mails[player("bob")])


def test_queue_on_ones_turn_plays_now_and_clear_empties(post):
    board = post.challenge()
    mails = by_recipient(post.send(f"xiangqi queue {board} alice Sw0rdfish h3e3", sender=player("alice")))
    assert "alice played h3e3 (C2=5)." in flat(mails[player("bob")])
    post.send(f"xiangqi queue {board} alice Sw0rdfish h1g3", sender=player("alice"))
    [ok] = post.send(f"xiangqi queue {board} alice Sw0rdfish clear", sender=player("alice"))
    assert "Your queue on Xiangqi Board 101 is empty now (1 move dropped)." in flat(ok)
    [error] = post.send(f"xiangqi queue {board} alice Sw0rdfish resign", sender=player("alice"))
    assert "Only moves can be queued" in flat(error)


def test_taking_back_moves_clears_the_queues(post):
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    post.send(f"xiangqi queue {board} bob Hunter22 h10g8", sender=player("bob"))
    post.move(board, "alice", "undo")
    mails = by_recipient(post.move(board, "bob", "accept"))
    assert post.db.execute("SELECT count(*) FROM premoves").fetchone() == (0,)
    assert "Queued moves were cleared." in flat(mails[player("alice")])


# --- queries ------------------------------------------------------------------------------------------------

def test_preview_saves_nothing(post):
    board = post.challenge()
    [page] = post.send(f"xiangqi preview {board} h3e3 h10g8", sender=player("carol"))
    assert page["Subject"] == "Xiangqi Board 101 alice preview"
    assert "Preview only, nothing was saved: after h3e3 (C2=5) h10g8 (H8+7) it would be alice's turn." \
        in flat(page)
    rows = {line[:3]: line for line in text(page).splitlines() if line[:3].strip().isdigit()}
    assert rows[" 8 "] == " 8   +--bC---+---+---+---+--bH--bC---+  8"     # the horse on g8
    assert rows[" 3 "] == " 3   +--rC---+---+--rC---+---+---+---+  3"
    [error] = post.send(f"xiangqi preview {board} h3e3 h3e3")
    assert "Move 2 of the preview (after h3e3 (C2=5)): h3e3 is not a legal move" in flat(error)
    assert post.db.execute("SELECT count(*) FROM moves").fetchone() == (0,)


def test_show_status_games_history(post):
    board = post.challenge()
    post.challenge("bob", "carol")
    post.move(board, "alice", "h3e3")
    post.move(board, "bob", "h10g8")
    [page] = post.send(f"xiangqi show {board}#1")
    assert "Position after move 1 of 2." in flat(page)
    assert "h10g8" not in text(page)
    [error] = post.send(f"xiangqi show {board}#5")
    assert "has 2 moves so far, so there is no position after move 5" in flat(error)
    pages = post.send("xiangqi show bob")
    assert [p["Subject"] for p in pages] == ["Xiangqi Board 101 alice", "Xiangqi Board 102 bob"]
    [page] = post.send("xiangqi show bob carol next")
    assert page["Subject"] == "Xiangqi Board 102 bob"
    [page] = post.send("all show alice")
    assert page["Subject"] == "Xiangqi Board 101 alice"
    [page] = post.send(f"xiangqi status {board}")
    assert "2 moves so far; the last was h10g8 (H8+7)." in flat(page)
    assert "RIVER" not in text(page).replace(" ", "")
    [page] = post.send("xiangqi games")
    assert re.search(r"101  alice - bob +move 3, alice to move", text(page))
    assert re.search(r"102  bob - carol +move 1, bob to move", text(page))
    [page] = post.send("xiangqi games carol next")
    assert "(none)" in flat(page)
    [error] = post.send("xiangqi games dave")
    assert "There is no user dave here" in flat(error)
    post.move(board, "alice", "resign")
    [page] = post.send("xiangqi history")
    assert re.search(r"101  alice - bob +won by bob: alice resigned \(2024-03-01\)", text(page))
    [page] = post.send("xiangqi history carol")
    assert "(none)" in flat(page)


# --- chat and observers ----------------------------------------------------------------------------------

def test_observers_and_chat(post):
    board = post.challenge()
    [error] = post.send(f"xiangqi chat {board} carol c4rol-pw", "hi", sender=player("carol"))
    assert "Only the players and observers" in flat(error)
    [welcome] = post.send(f"xiangqi subscribe {board} carol c4rol-pw", sender=player("carol"))
    assert "You now observe Xiangqi Board 101" in flat(welcome)
    mails = by_recipient(post.move(board, "alice", "h3e3", body="Watch this."))
    assert set(mails) == {player("alice"), player("bob"), player("carol")}
    assert mails[player("carol")]["Reply-To"] is None
    assert "alice writes:\n\nWatch this." in text(mails[player("carol")])
    observed = flat(mails[player("carol")])
    # one mail for every observer (tests/test_observer_views.py): the command names no one
    assert "You observe this game; to stop, send: xiangqi unsubscribe 101 USERID PASSWORD" in observed
    mails = by_recipient(post.send(f"xiangqi chat {board} carol c4rol-pw", "Nice opening!", sender=player("carol")))
    assert "Your message was sent to alice, bob." in flat(mails[player("carol")])
    assert mails[player("bob")]["Subject"] == "Xiangqi Board 101 bob **"
    assert "carol writes about Xiangqi Board 101:\n\nNice opening!" in text(mails[player("bob")])
    [error] = post.send(f"xiangqi chat {board} carol c4rol-pw", "", sender=player("carol"))
    assert "the body was empty" in flat(error)
    [error] = post.send(f"xiangqi subscribe {board} alice Sw0rdfish")
    assert "You play on Xiangqi Board 101" in flat(error)
    post.send(f"xiangqi unsubscribe {board} carol c4rol-pw", sender=player("carol"))
    mails = by_recipient(post.move(board, "bob", "h10g8"))
    assert set(mails) == {player("alice"), player("bob")}
    [error] = post.send(f"xiangqi unsubscribe {board} carol c4rol-pw", sender=player("carol"))
    assert "You do not observe" in flat(error)


def test_a_password_in_the_comment_is_masked(post):
    board = post.challenge()
    mails = by_recipient(post.move(board, "alice", "h3e3", body="my password is Sw0rdfish, oops"))
    assert "my password is ********, oops" in flat(mails[player("bob")])


# --- admin ---------------------------------------------------------------------------------------------------

def test_admin_adjudicate(post):
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    post.move(board, "bob", "h10g8")
    [error] = post.send(f"xiangqi adjudicate {board} carol c4rol-pw alice", sender=player("carol"))
    assert "carol is not an administrator of this server" in flat(error)
    [error] = post.send(f"xiangqi adjudicate {board} root R00t-admin nobody", sender=player("root"))
    assert "one of alice, bob, red, black, draw" in flat(error)
    mails = by_recipient(post.send(f"xiangqi adjudicate {board} root R00t-admin black bob left it won",
                                   sender=player("root")))
    assert set(mails) == {player("root"), player("alice"), player("bob")}
    assert "Game won by bob (adjudicated by root: bob left it won)." in flat(mails[player("alice")])
    assert "Administrator root adjudicated Xiangqi Board 101: won by bob. Reason: bob left it won" \
        in flat(mails[player("bob")])
    assert post.db.execute("SELECT kind, user_id, detail FROM events WHERE kind = 'adjudicate'").fetchall() \
        == [("adjudicate", "root", "black: bob left it won")]
    [table] = post.send("xiangqi standings")
    assert re.search(r"1  bob +1741\? ±793", text(table))


def test_admin_adjudicate_draw_forfeit_cancel(post):
    first, second, third = post.challenge(), post.challenge("bob", "carol"), post.challenge("carol", "alice")
    mails = by_recipient(post.send(f"xiangqi adjudicate {first} root R00t-admin draw", sender=player("root")))
    assert "Draw (adjudicated by root: no reason given)." in flat(mails[player("alice")])
    mails = by_recipient(post.send(f"xiangqi forfeit {second} root R00t-admin carol no answer for weeks",
                                   sender=player("root")))
    assert "Game won by bob (carol forfeited, ruled by root: no answer for weeks)." in flat(mails[player("carol")])
    [error] = post.send(f"xiangqi forfeit {third} root R00t-admin bob", sender=player("root"))
    assert "bob does not play on Xiangqi Board 103" in flat(error)
    mails = by_recipient(post.send(f"xiangqi cancel {third} root R00t-admin test game", sender=player("root")))
    assert "Game cancelled (by root: test game)." in flat(mails[player("alice")])
    assert "Administrator root cancelled Xiangqi Board 103; it has no result and is not rated." \
        in flat(mails[player("carol")])
    [error] = post.send(f"xiangqi cancel {third} root R00t-admin", sender=player("root"))
    assert "Xiangqi Board 103 is over (cancelled: by root: test game)" in flat(error)
    kinds = post.db.execute("SELECT kind, user_id FROM events WHERE kind IN "
                            "('adjudicate', 'forfeit', 'cancel') ORDER BY id").fetchall()
    assert kinds == [("adjudicate", "root"), ("forfeit", "root"), ("cancel", "root")]
    [page] = post.send("xiangqi games alice inactive")
    assert "cancelled: by root: test game" in flat(page) and "drawn: adjudicated by root" in text(page)


def test_admin_password_is_checked(post):
    board = post.challenge()
    [error] = post.send(f"xiangqi cancel {board} root wrong-pw", sender=player("root"))
    assert "Invalid password for root" in flat(error)


# --- multiple, timers ------------------------------------------------------------------------------------

def test_multiple_commands_in_one_mail(post):
    board, other = post.challenge(), post.challenge("alice", "carol")
    mails = post.send("multiple", f"xiangqi move {board} alice Sw0rdfish h3e3\n"
                                  f"xiangqi move {other} alice Sw0rdfish h3e9\n"
                                  f"xiangqi move {other} alice Sw0rdfish b3e3\n\nGood luck in both!",
                      sender=player("alice"))
    subjects = [(m["To"], m["Subject"]) for m in mails]
    assert subjects == [(player("alice"), "pbm test: the answers to your 3 commands"),   # one mail
                        (player("bob"), "Xiangqi Board 101 bob **"), (player("carol"), "Xiangqi Board 102 carol **")]
    headings = [line for line in text(mails[0]).splitlines() if line.startswith("==== ")]
    assert headings == ["==== 1. Xiangqi Board 101 bob", "==== 2. Xiangqi Board 102 Error",
                        "==== 3. Xiangqi Board 102 carol"]
    assert "alice writes:\n\nGood luck in both!" in text(mails[2])


def test_reminder_and_timeout(post):
    board = post.challenge(extra="--timeout=3 --reminder=1")
    assert post.tick(0.5) == []
    [reminder] = post.tick(0.6)
    assert reminder["To"] == player("alice") and reminder["Auto-Submitted"] == "auto-generated"
    assert "Reminder: it is your move on Xiangqi Board 101." in flat(reminder)
    assert "you lose on time" in flat(reminder)
    assert post.tick(0.5) == []                 # one reminder per turn
    post.move(board, "alice", "h3e3")
    [reminder] = post.tick(3.1)                 # bob has not consented: his clock does not run
    assert reminder["To"] == player("bob") and "you lose on time" not in flat(reminder)
    post.move(board, "bob", "h10g8")            # now it does, and alice's too
    post.move(board, "alice", "h1g3")
    mails = by_recipient(post.tick(3.1))
    assert set(mails) == {player("alice"), player("bob")}
    assert "Game won by alice (bob did not move within 3 days)." in flat(mails[player("bob")])
    assert post.tick(10) == []


def test_default_reminder_after_a_week(post):
    post.challenge()
    assert post.tick(6.9) == []
    [reminder] = post.tick(0.2)
    assert "Reminder" in flat(reminder)


def test_no_password_in_any_mail_of_a_busy_session(post):
    board = post.challenge()
    for subject in (f"xiangqi move {board} alice Sw0rdfish h3e3", f"xiangqi move {board} bob Hunter22",
                    f"xiangqi queue {board} alice Sw0rdfish", "change password bob Hunter22",
                    f"xiangqi chat {board} bob Hunter22 extra", f"xiangqi resign {board} Hunter22 bob",
                    "signoff Sw0rdfish", f"xiangqi adjudicate {board} root R00t-admin",
                    f"xiangqi subscribe {board} carol c4rol-pw c4rol-pw"):
        post.send(subject)
    assert len(post.sent) > 9
