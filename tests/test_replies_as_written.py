"""Replies as people write them: a turn mail answered with a greeting before the move plays the
move (the other lines are the comment); a reply in which nothing reads as a move is answered with
the lines read, only the player's own password masked, and what would be right; a reply to chat
stays chat; a `show` or `status` mail to a player's registered address answers like a board mail."""
from __future__ import annotations

import pytest
from support.postoffice import PASSWORDS, by_recipient, flat, text

pytestmark = pytest.mark.post_office("alice", "bob")


def turn_mail(post):
    return by_recipient(post.send("xiangqi challenge alice bob"))["alice@example.org"]


def test_the_move_after_a_greeting_is_played_and_the_rest_is_the_comment(post):
    mails = by_recipient(post.reply(turn_mail(post), "Hi bob,\n\nh3e3\n\nGood luck!"))
    assert "alice played h3e3 (C2=5)." in text(mails["alice@example.org"])
    to_bob = text(mails["bob@example.org"])
    assert "alice writes:" in to_bob and "Hi bob," in to_bob and "Good luck!" in to_bob
    assert "h3e3\n\nGood" not in to_bob                 # the move is not part of the comment
    mails = by_recipient(post.reply(mails["bob@example.org"], "Thanks, you too.\nmove h10g8"))
    assert "bob played h10g8 (H8+7)." in text(mails["bob@example.org"])


def test_a_reply_without_a_move_shows_what_was_read_and_masks_only_the_password(post):
    turn = turn_mail(post)
    [error] = post.reply(turn, f"Hi bob, {PASSWORDS['alice']} wonderful\n"
                               "I am thinking about it\nmore later")
    said = flat(error)
    assert "Hi bob, ******** wonderful" in said and PASSWORDS["alice"] not in said
    assert "I am thinking about it" in said and "more later" in said
    assert "Write your move alone on a line (for example " in said
    assert post.db.execute("SELECT ply FROM games").fetchone() == (0,)


def test_a_reply_to_a_note_is_still_chat(post):
    turn = turn_mail(post)
    note = by_recipient(post.reply(turn, "h3e3"))["alice@example.org"]      # not alice's turn now
    to_bob = by_recipient(post.reply(note, "Hi bob,\nh1g3 is what I would play next"))
    assert "Hi bob," in text(to_bob["bob@example.org"])         # chat, passed on; no move played
    assert post.db.execute("SELECT ply FROM games").fetchone() == (1,)


def test_show_and_status_to_a_player_carry_their_reply_address(post):
    turn_mail(post)
    for verb in ("show", "status"):
        [mine] = post.send(f"xiangqi {verb} 101", sender="alice@example.org")
        assert mine["Reply-To"].startswith("pbm+xiangqi-101-alice-")
        [theirs] = post.send(f"xiangqi {verb} 101", sender="carol@example.org")
        assert theirs["Reply-To"] is None
    [shown] = post.send("xiangqi show 101", sender="alice@example.org")
    mails = by_recipient(post.reply(shown, "Hello\nh3e3"))
    assert "alice played h3e3 (C2=5)." in text(mails["alice@example.org"])


def test_from_another_address_every_word_that_may_be_a_password_is_masked(post):
    """A stranger holding a forwarded mail's reply address learns nothing of the password: the
    error goes to the sender, so no word is checked and every long one is masked."""
    turn = turn_mail(post)
    [error] = post.reply(turn, f"Hi bob, {PASSWORDS['alice']} wonderful\nno move here",
                         sender="mallory@example.net")
    assert error["To"] == "mallory@example.net"
    assert "Hi bob, ******** ********" in flat(error) and "no move here" in flat(error)

