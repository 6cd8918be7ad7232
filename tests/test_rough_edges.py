"""What a new player runs into, through `pbm deliver` with real message bytes."""
from __future__ import annotations

from support.postoffice import plain
from support.processes import PbmEnv


def flat(mail) -> str:
    return " ".join(plain(mail).split())


def start(pbm_env: PbmEnv, game: str = "xiangqi", options: str = "") -> dict:
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.mail("signup bob Hunter22", sender="bob@example.org")
    pbm_env.mail(f"{game} challenge {options} alice bob".replace("  ", " "))
    return {m["To"]: m for m in pbm_env.replies() if m["Reply-To"]}


def test_queue_refuses_what_is_not_a_move_at_once_and_keeps_what_may_become_one(pbm_env: PbmEnv) -> None:
    start(pbm_env)
    pbm_env.mail("xiangqi queue 101 bob Hunter22 h2z9", sender="bob@example.org")
    [error] = pbm_env.replies()
    assert "'z9' is not a point of the board; points go from a1 to i10" in flat(error)
    pbm_env.mail("xiangqi queue 101 bob Hunter22 soon", sender="bob@example.org")
    [error] = pbm_env.replies()
    assert "'soon' is not a move I can read: write it as from-to coordinates" in flat(error)
    pbm_env.mail("xiangqi queue 101 bob Hunter22 X2=5", sender="bob@example.org")
    [error] = pbm_env.replies()
    assert "X is not a piece letter; WXF uses K A E H R C P" in flat(error)
    pbm_env.mail("xiangqi queue 101 bob Hunter22 a10a5", sender="bob@example.org")  # not legal now
    [ok] = pbm_env.replies()
    assert "Queued a10a5 on Xiangqi Board 101" in flat(ok)
    assert ok["Reply-To"] and "bob" in ok["Reply-To"]        # the sender was proven: replies work
    assert pbm_env.query("SELECT move FROM premoves") == [("a10a5",)]


def test_the_turn_mail_gives_an_example_of_ones_own_side_and_the_deadline(pbm_env: PbmEnv) -> None:
    mails = start(pbm_env, options="--timeout=3")
    alice = flat(mails["alice@example.org"])
    assert "Move by " in alice and "UTC or lose on time." in alice
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish h3e3")
    bob = next(m for m in pbm_env.replies() if m["To"] == "bob@example.org")
    example = flat(bob).split("(for example ")[1].split(")")[0]
    coordinates, wxf = example.split(" or ")
    assert int(coordinates[1:-2]) >= 6 or coordinates[1:].startswith("10")     # a black piece
    assert "lose on time" not in flat(bob)      # bob has not consented yet: his clock does not run


def test_a_reply_error_names_only_the_forms_of_that_game(pbm_env: PbmEnv) -> None:
    mails = start(pbm_env)
    pbm_env.reply(mails["alice@example.org"], "h3e3 please\n")
    [error] = pbm_env.replies()
    usage = plain(error).split("Usage:")[1]
    assert "coordinates or WXF" in usage and "pass" not in usage and "setup" not in usage

    pbm_env.mail("janggi challenge alice bob")
    turn = next(m for m in pbm_env.replies() if m["To"] == "alice@example.org")
    pbm_env.reply(turn, "e2e3 now\n")
    [error] = pbm_env.replies()
    usage = plain(error).split("Usage:")[1]
    assert "WXF" not in usage and "| pass" in usage and "setup ARRANGEMENT" in usage


def test_a_reply_to_a_chat_or_a_note_is_chat_and_to_a_turn_mail_an_error(pbm_env: PbmEnv) -> None:
    mails = start(pbm_env)
    note = mails["bob@example.org"]                 # bob is not to move: a note
    pbm_env.reply(note, "Good luck, and have fun!\nSecond line.\n")
    out = {m["To"]: m for m in pbm_env.replies()}
    assert "bob writes:" in flat(out["alice@example.org"]) or "bob" in flat(out["alice@example.org"])
    assert "Good luck, and have fun! Second line." in flat(out["alice@example.org"])
    assert "Your message was sent to alice." in flat(out["bob@example.org"])
    chat = out["alice@example.org"]
    pbm_env.reply(chat, "Thanks, you too\n")        # a reply to the chat is chat too
    out = {m["To"]: m for m in pbm_env.replies()}
    assert "Thanks, you too" in flat(out["bob@example.org"])
    pbm_env.reply(note, "Hunter22 h10g8\n")         # holds a move: never chat
    [error] = pbm_env.replies()                     # the lines read, bob's password masked
    assert error["To"] == "bob@example.org" and "Hunter22" not in plain(error)
    assert "******** h10g8" in plain(error)
    pbm_env.reply(mails["alice@example.org"], "Good luck!\n")   # a turn mail wants a move
    [error] = pbm_env.replies()
    assert error["To"] == "alice@example.org" and "was not carried out" in flat(error)


def test_status_puts_the_summary_before_the_record_and_a_declined_game_shows_no_board(
        pbm_env: PbmEnv) -> None:
    start(pbm_env)
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish propose")
    pbm_env.replies()
    pbm_env.mail("xiangqi status 101")
    [status] = pbm_env.replies()
    body = plain(status)
    assert body.index("Summary of Xiangqi Board 101") < body.index("Record:") < body.index("alice offered a draw")
    pbm_env.mail("xiangqi resign 101 bob Hunter22", sender="bob@example.org")
    for mail in pbm_env.replies():
        assert "bob has declined the challenge" in flat(mail)
        assert "rR--rH" not in plain(mail) and "A   B   C" not in plain(mail)


def test_each_board_is_drawn_from_its_readers_side_as_their_preferences_say(pbm_env: PbmEnv) -> None:
    mails = start(pbm_env)
    red, black = plain(mails["alice@example.org"]), plain(mails["bob@example.org"])
    assert red.index("10  bR") < red.index(" 1  rR")            # Red at the bottom for alice
    assert black.index(" 1  rR") < black.index("10  bR")        # turned for bob: Black at the bottom
    assert "     I   H   G   F   E   D   C   B   A" in black

    pbm_env.mail("set bob Hunter22 board=red notation=coordinates", sender="bob@example.org")
    [done] = pbm_env.replies()
    assert "board=red" in flat(done) and "notation=coordinates" in flat(done)
    pbm_env.mail("set bob Hunter22 board=sideways", sender="bob@example.org")
    [error] = pbm_env.replies()
    assert "board=sideways is not a preference. The preferences are: board=own|red|off" in flat(error)
    pbm_env.mail("set alice Sw0rdfish board=off")
    pbm_env.replies()
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish h3e3")
    mails = {m["To"]: plain(m) for m in pbm_env.replies()}
    assert mails["bob@example.org"].index("10  bR") < mails["bob@example.org"].index(" 1  rR")
    assert "  1. h3e3\n" in mails["bob@example.org"] and "C2=5" not in mails["bob@example.org"].split("Summary")[1]
    assert "rR--rH" not in mails["alice@example.org"] and "1. h3e3   C2=5" in mails["alice@example.org"]
    pbm_env.mail("xiangqi show 101", sender="bob@example.org")      # a query, as its sender likes it
    [shown] = pbm_env.replies()
    assert plain(shown).index("10  bR") < plain(shown).index(" 1  rR")
