"""A player's private notes through real `pbm deliver` processes: written during the game (a
command, a reply whose first line starts with note:, a line kept with `preview ... save`), shown
only to their writer, then shared into the record as a comment and a variation that an independent
PGN reader takes."""
from __future__ import annotations

from support.pgn_reader import read
from support.postoffice import plain
from support.processes import PbmEnv
from test_correspondence import PASSWORDS, flat, seated

A, B = "alice@example.org", "bob@example.org"
SECRET = "the central cannon again"


def _pgn(mail) -> str:
    """The PGN attached, its lines joined (a comment may wrap)."""
    [part] = [p for p in mail.iter_attachments() if p.get_filename().endswith(".pgn")]
    return part.get_content()


def _words(mail) -> str:
    return " ".join(_pgn(mail).split())


def test_a_note_is_private_until_shared_after_the_end(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env)
    table.later(hours=1)
    mails = table.game("alice", "move", "h3e3")
    table.later(hours=2)
    kept = table.reply(mails[B], f"note: {SECRET}\nI should answer with the horse.")
    assert "is kept; only you see it" in flat(kept[B]) and A not in kept
    kept = table.game("bob", "preview", "h10g8 h1g3 i10h10 save", body="Horse first, then the rook.")
    assert "is kept" in flat(kept[B])
    mails = table.game("bob", "move", "h10g8")
    mine, theirs = plain(mails[B]), flat(mails[A])
    assert "Your notes (only you see them):" in mine and SECRET in " ".join(mine.split())
    assert "Line: h10g8 (H8+7) h1g3 (H2+3) i10h10 (R9=8)" in mine
    assert SECRET not in theirs and "Your notes" not in theirs
    # while the game runs, nobody else reads them: not the opponent's record, not the stored mail
    record = table.send("alice", "xiangqi record 101")
    assert SECRET not in flat(record[A]) and SECRET not in _pgn(record[A])
    assert not [row for row in pbm_env.query("SELECT raw FROM inbound") if SECRET.encode() in row[0]]
    everything = flat(table.game("bob", "notes", "share")[B])
    assert "join its record for everyone once the game has ended" in everything and SECRET in everything
    assert "Line: h10g8 (H8+7) h1g3 (H2+3) i10h10 (R9=8)" in everything
    assert SECRET not in _pgn(table.send("alice", "xiangqi record 101")[A])     # not before the end
    ended = table.game("alice", "resign")
    game = read(_pgn(ended[A]))
    notes = [text for _before, text in game.comments if "(note)" in text]
    assert notes == [f"bob (note): {SECRET} I should answer with the horse.",
                     "bob (note): Horse first, then the rook. [line: h10g8 h1g3 i10h10]"]
    # the line is a variation replacing Black's first move: 1... H8+7 2. H2+3 R9=8
    assert game.variations == [(1, ["H8+7", "H2+3", "R9.8"])]
    assert game.moves == ["C2.5", "H8+7"]


def test_notes_of_a_player_who_does_not_share_stay_private(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env)
    table.game("alice", "move", "h3e3")
    table.game("bob", "note", body=SECRET)
    table.game("bob", "move", "h10g8")
    table.game("alice", "resign")
    assert SECRET not in _pgn(table.send("alice", "xiangqi record 101")[A])
    table.send("bob", f"set bob {PASSWORDS['bob']} notes=share")         # every game, the ended too
    assert SECRET in _words(table.send("alice", "xiangqi record 101")[A])


def test_only_players_and_observers_keep_notes(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env, "", "carol")
    refused = flat(table.game("carol", "note", body="mine")["carol@example.org"])
    assert "Only the players and observers of Xiangqi Board 101 can keep notes" in refused


def test_deadline_event_move_times_and_pieces_by_real_processes(pbm_env: PbmEnv) -> None:
    """The desk through `pbm deliver`: the player to move gets an iCalendar event at the deadline
    the database holds, moved by the next mail; each move's time in status; the pieces in words."""
    import icalendar
    from datetime import datetime

    def event(mail):
        [part] = [p for p in mail.walk() if p.get_content_type() == "text/calendar"]
        [item] = icalendar.Calendar.from_ical(part.get_content()).walk("VEVENT")
        return item

    table = seated(pbm_env, "--clock=3+1")
    table.game("alice", "move", "h3e3")
    table.later(hours=30)
    mails = table.game("bob", "move", "h10g8")
    [[deadline]] = pbm_env.query("SELECT deadline FROM games")
    first = event(mails[A])
    assert first["STATUS"] == "CONFIRMED" and first.decoded("DTSTART") == datetime.fromisoformat(deadline)
    table.later(hours=5)
    mails = table.game("alice", "move", "h1g3")
    again = event(mails[A])
    assert again["UID"] == first["UID"] and again["SEQUENCE"] > first["SEQUENCE"]
    assert again["STATUS"] == "CANCELLED" and event(mails[B])["STATUS"] == "CONFIRMED"
    status = plain(table.send("bob", "xiangqi status 101")[B])
    assert "  2. bob    h10g8  H8+7" in status and "1 d 6 h" in status and "5 h 0 min" in status
    words = " ".join(plain(mails[B]).split())
    assert "Red: king e1; advisor d1, f1; elephant c1, g1; horse b1, g3;" in words


def test_a_screen_reader_finds_every_piece_on_the_page(pbm_env: PbmEnv) -> None:
    """The game's page in Chromium, read as a screen reader reads it (the accessibility tree): the
    list under the board names every piece of both sides, and the picture's name says the same."""
    import re

    from support.devtools import accessible_names
    from support.processes import free_port, listening, wait_until

    port = free_port()
    pbm_env.configure(web={"listen": f"127.0.0.1:{port}", "base_url": f"http://127.0.0.1:{port}"})
    server = pbm_env.start_server()
    try:
        assert wait_until(lambda: listening(port), 30), server.log()
        table = seated(pbm_env)
        mails = table.game("alice", "move", "h3e3")
        link = re.search(r"http://127\.0\.0\.1:\d+/g/[A-Za-z0-9_-]+", plain(mails[B]))[0]
        names = accessible_names(link)
        red = next(n for n in names if n.startswith("Red: king e1;") and "Black" not in n)
        black = next(n for n in names if n.startswith("Black: king e10;"))
        for words in (red, black):          # the list's items, one a side
            assert len(re.findall(r"\b[a-i](?:10|[1-9])\b", words)) == 16, words
        assert any(n.startswith("Red: king e1;") and "Black: king e10;" in n for n in names)   # the picture
    finally:
        assert server.stop() == 0
