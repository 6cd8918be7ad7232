"""Correspondence play through real `pbm deliver` and `pbm timers` processes: conditional moves,
clocks with a bank and an increment (time moved on with PBM_NOW, pbm.clock), submit and confirm,
replay and end-of-game notices."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.message import EmailMessage

from support.postoffice import by_recipient, plain
from support.processes import PbmEnv

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22", "carol": "c4rol-pw"}
# The games begin a month ago, so that every mail queued at a later game time is due now.
START = (datetime.now(timezone.utc) - timedelta(days=30)).replace(hour=12, minute=0, second=0,
                                                                    microsecond=0)


def flat(mail: EmailMessage) -> str:
    return " ".join(plain(mail).split())


class Table:
    """Two players at a game through `pbm deliver`, with a clock that moves only when told."""

    def __init__(self, env: PbmEnv) -> None:
        self.env = env
        self.now = START

    def at(self) -> str:
        return self.now.isoformat()

    def send(self, user: str, subject: str, body: str = "") -> dict[str, EmailMessage]:
        """Mail `subject` from `user`; the replies, by recipient."""
        result = self.env.deliver(self.env.message(subject, body, sender=f"{user}@example.org"),
                                  PBM_NOW=self.at())
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return by_recipient(self.env.replies())

    def game(self, user: str, verb: str, rest: str = "", body: str = "", board: int = 101,
             game: str = "xiangqi") -> dict[str, EmailMessage]:
        """`xiangqi VERB 101 USER PASSWORD REST`."""
        return self.send(user, f"{game} {verb} {board} {user} {PASSWORDS[user]} {rest}".strip(), body)

    def reply(self, mail: EmailMessage, body: str) -> dict[str, EmailMessage]:
        message = self.env.message(f"Re: {mail['Subject']}", body, sender=str(mail["To"]),
                                   to=str(mail["Reply-To"]), In_Reply_To=mail["Message-ID"])
        result = self.env.deliver(message, PBM_NOW=self.at())
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return by_recipient(self.env.replies())

    def timers(self) -> dict[str, EmailMessage]:
        result = self.env.run("timers", PBM_NOW=self.at())
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return by_recipient(self.env.replies())

    def later(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def seated(env: PbmEnv, options: str = "", *users: str) -> Table:
    table = Table(env)
    for user in ("alice", "bob", *users):
        table.send(user, f"signup {user} {PASSWORDS[user]}")
    table.send("alice", f"xiangqi challenge {options} alice bob".replace("  ", " "))
    return table


A, B = "alice@example.org", "bob@example.org"
TREE = """h10g8 h1g3 i10h10 i1h1
b10c8 b1c3 a10b10 a1b1
h8e8 h1g3 h10g8 i1h1
"""


def test_a_tree_of_three_branches_is_played_out_along_one_of_them(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env)
    table.game("alice", "move", "h3e3")
    [answer] = table.game("alice", "conditional", body=TREE).values()
    assert "Your conditional moves on Xiangqi Board 101 are set (3 lines)" in flat(answer)
    assert "If bob plays h10g8 (H8+7), you play h1g3 (H2+3)." in plain(answer)
    assert "  then if bob plays i10h10 (R9=8), you play i1h1 (R1=2)." in plain(answer)
    assert answer["To"] == A

    mails = table.game("bob", "move", "h10g8")              # the first branch: h1g3 at once
    assert "bob played h10g8 (H8+7). alice played h1g3 (H2+3) (Auto)." in flat(mails[B])
    assert "It is bob's turn." in flat(mails[B])
    assert pbm_env.query("SELECT move, auto FROM moves ORDER BY ply") == [
        ("h3e3", 0), ("h10g8", 0), ("h1g3", 1)]
    assert pbm_env.query("SELECT ply, line FROM conditionals") == [(3, "i10h10 i1h1")]

    [status] = table.send("alice", "xiangqi status 101").values()   # the owner sees what is left
    assert "Your conditional moves (only you see them):" in plain(status)
    assert "If bob plays i10h10 (R9=8), you play i1h1 (R1=2)." in plain(status)
    assert "b10c8" not in plain(status)
    [other] = table.send("bob", "xiangqi status 101").values()      # the opponent does not
    assert "conditional" not in plain(other) and "i1h1" not in plain(other)

    mails = table.game("bob", "move", "i10h10")             # the second move of the branch
    assert "alice played i1h1 (R1=2) (Auto)." in flat(mails[B])
    assert pbm_env.query("SELECT count(*) FROM conditionals") == [(0,)]
    bob_saw = "".join(plain(m) for m in mails.values() if m["To"] == B)
    assert "b10c8" not in bob_saw and "conditional" not in bob_saw.lower()


def test_a_move_the_tree_did_not_foresee_drops_it_and_the_owner_is_told(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env)
    table.game("alice", "move", "h3e3")
    turn = next(iter(table.game("alice", "conditional", body="h10g8 h1g3").values()))
    mails = table.game("bob", "move", "b10c8")
    assert "Your conditional moves did not foresee bob's b10c8 (H2+3), so they were dropped." \
        in flat(mails[A])
    assert "conditional" not in flat(mails[B])
    assert pbm_env.query("SELECT count(*) FROM conditionals") == [(0,)]
    # a reply to a game mail works too: `conditional` on the first line, the branches below
    turn = mails[A]
    table.game("alice", "move", "h1g3")
    bob_turn = pbm_env.query("SELECT to_move FROM games")
    assert bob_turn == [("bob",)]
    [answer] = table.reply(turn, "conditional\na10a9 i1h1\n").values()
    assert "are set (1 line)" in flat(answer)


def test_a_branch_with_an_illegal_or_unreadable_move_refuses_the_whole_tree(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env)
    table.game("alice", "move", "h3e3")
    [error] = table.game("alice", "conditional", body="h10g8 h1g3\nb10c8 e3e5\n").values()
    assert error["Subject"] == "Xiangqi Board 101 Error"
    assert 'The line "b10c8 e3e5" is refused at its move 2, e3e5 (your reply): e3e5 is not a ' \
           'legal move' in flat(error)
    [error] = table.game("alice", "conditional", body="h10g8 zz9\n").values()
    assert "The line \"h10g8 zz9\" is refused at its move 2, zz9 (your reply)" in flat(error)
    [error] = table.game("alice", "conditional", body="h10g8 h1g3\nh10g8 b1c3\n").values()
    assert "answers h10g8 with b1c3, but an earlier line answers it with h1g3" in flat(error)
    [error] = table.game("alice", "conditional", body="h10g8\n").values()
    assert "has 1 move: a line is pairs of moves" in flat(error)
    assert pbm_env.query("SELECT count(*) FROM conditionals") == [(0,)]
    [error] = table.game("bob", "conditional", body="h1g3 h10g8").values()
    assert "It is your move on Xiangqi Board 101" in flat(error)


def test_taking_back_a_move_drops_the_tree_and_tells_its_owner(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env)
    table.game("alice", "move", "h3e3")
    table.game("bob", "move", "h10g8")
    table.game("alice", "move", "h1g3")
    table.game("alice", "conditional", body="i10h10 i1h1\n")
    table.game("alice", "move", "undo")
    mails = table.game("bob", "move", "accept")
    assert "Your conditional moves on Xiangqi Board 101 were dropped: h1g3 was taken back." \
        in flat(mails[A])
    assert "conditional" not in flat(mails[B])
    assert pbm_env.query("SELECT count(*) FROM conditionals") == [(0,)]


def test_a_clock_with_a_bank_an_increment_a_reminder_and_a_loss_on_time(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env, "--clock=3+1")
    first = table.env.query("SELECT options FROM games")
    assert first == [('{"clock": "3+1"}',)]
    table.later(hours=12)
    mails = table.game("alice", "move", "h3e3")             # 3 days - 12 hours + 1 day
    assert "Clock: 3 days + 1 day a move; weekends count." in flat(mails[B])
    assert "alice has 3 days 12 hours left." in flat(mails[B])
    assert "bob has 3 days left (not running yet)." in flat(mails[B])
    table.later(days=1)
    mails = table.game("bob", "move", "h10g8")               # his clock ran from his first move
    assert "bob has 4 days left." in flat(mails[A]) and "alice has 3 days 12 hours left." in flat(mails[A])
    table.later(days=1)
    assert table.timers() == {}                             # 2 days 12 hours left: no reminder yet
    table.later(hours=13)
    [reminder] = table.timers().values()                    # under two days (more than 3/4 day)
    assert reminder["To"] == A
    assert "Reminder: it is your move on Xiangqi Board 101. You have 1 day 23 hours left" \
        in flat(reminder)
    table.later(days=2)
    mails = table.timers()
    assert "alice has lost on time: the limit is 3 days + 1 day a move." in flat(mails[B])
    assert pbm_env.query("SELECT status, winner, reason FROM games") == [
        ("finished", "bob", "alice ran out of time")]
    [record] = table.send("bob", "xiangqi record 101").values()
    assert '[TimeControl "259200+86400"]' in plain(record)


def test_running_out_of_time_draws_when_the_opponent_could_not_win(pbm_env: PbmEnv) -> None:
    fen = "3aka3/9/9/9/9/9/9/9/R8/3K5_w_-_-_0_1"               # bob: king and advisors only
    table = seated(pbm_env, f"-fen={fen} --clock=1+0")
    table.later(days=1, minutes=1)
    mails = table.timers()
    assert "alice has run out of time, but bob has no piece left that could win, so the game is " \
           "drawn." in flat(mails[A])
    assert pbm_env.query("SELECT status, result, winner FROM games") == [("finished", "1/2-1/2", None)]


def test_a_clock_under_a_day_is_refused(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env)
    [error] = table.send("alice", "xiangqi challenge --clock=0.5+1 alice bob").values()
    assert "--clock=0.5+1: the bank must be at least one day" in flat(error)
    [error] = table.send("alice", "xiangqi seek alice Sw0rdfish --clock=10+1 --timeout=3").values()
    assert "--clock goes alone: it replaces --timeout" in flat(error)
    [answer] = table.send("alice", "xiangqi seek alice Sw0rdfish --clock=10+0.5").values()
    assert "(--clock=10+0.5 rated)" in flat(answer)


def test_submit_shows_a_preview_and_confirm_plays_it(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env)
    [preview] = table.game("alice", "submit", "h3e3").values()
    assert preview["Subject"] == "Xiangqi Board 101 alice preview"
    assert flat(preview).startswith("Preview: nothing was played yet. After your h3e3 (C2=5), it "
                                    "would be bob's turn.")
    assert pbm_env.query("SELECT count(*) FROM moves") == [(0,)]
    mails = table.reply(preview, "confirm\n")
    assert "alice played h3e3 (C2=5)." in flat(mails[B])
    assert pbm_env.query("SELECT move FROM moves") == [("h3e3",)]


def test_confirm_after_the_position_changed_is_refused(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env)
    table.game("alice", "submit", "h3e3")
    table.game("alice", "move", "b3e3")                     # she played another move instead
    table.game("bob", "move", "h10g8")
    [error] = table.game("alice", "confirm").values()
    assert "Your submitted move h3e3 was not played: the position on Xiangqi Board 101 has " \
           "changed since you submitted it" in flat(error)
    assert pbm_env.query("SELECT count(*) FROM moves") == [(2,)]


def test_replay_shows_an_earlier_position_with_moves_tried_on_it(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env)
    table.game("alice", "move", "h3e3")
    table.game("bob", "move", "h10g8")
    page = next(iter(table.send("bob", "xiangqi replay 101 1 b10c8").values()))
    assert "Replay only, nothing was saved. The position after move 1 of 2, then b10c8 (H2+3) " \
           "tried on it: it would be alice's turn." in flat(page)
    assert pbm_env.query("SELECT count(*) FROM moves") == [(2,)]
    [error] = table.send("bob", "xiangqi replay 101 5").values()
    assert "MOVENO is a number of moves from 0 to 2" in flat(error)


def test_notify_sends_a_notice_when_a_game_ends(pbm_env: PbmEnv) -> None:
    table = seated(pbm_env, "", "carol")
    [answer] = table.send("carol", "xiangqi notify carol c4rol-pw 101").values()
    assert "You will get a notice when 101 ends." in flat(answer)
    table.game("alice", "move", "h3e3")
    table.game("bob", "move", "h10g8")
    mails = table.game("alice", "resign")
    notice = mails["carol@example.org"]
    assert notice["Subject"] == "Xiangqi Board 101 over: bob won (alice resigned)"
    assert "Xiangqi Board 101 (alice - bob) is over: won by bob: alice resigned." in flat(notice)
    assert any(part.get_filename() == "xiangqi-101.pgn" for part in notice.iter_attachments())


def test_notices_for_every_game_of_ones_own_and_off(tmp_path) -> None:
    from support.postoffice import PostOffice, text
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    [answer] = post.send("xiangqi notify alice Sw0rdfish")
    assert "You will get a notice when any game of yours ends." in text(answer)
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    post.move(board, "bob", "h10g8")
    mails = post.send(f"xiangqi resign {board} bob Hunter22", sender="bob@example.org")
    notices = [m for m in mails if m["To"] == A and "is over:" in text(m)]
    assert len(notices) == 1 and "won by alice: bob resigned" in " ".join(text(notices[0]).split())
    [answer] = post.send("xiangqi notify alice Sw0rdfish off")
    assert "Your end-of-game notices are off (1 dropped)." in text(answer)


def test_a_tree_wins_over_the_queue_which_stays_only_if_it_agrees(tmp_path) -> None:
    from support.postoffice import PostOffice, text
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    board = post.challenge()
    post.move(board, "alice", "h3e3")
    post.send(f"xiangqi queue {board} alice Sw0rdfish b1c3")
    post.send(f"xiangqi queue {board} alice Sw0rdfish a1b1")
    post.send(f"xiangqi conditional {board} alice Sw0rdfish", "h10g8 H2+3\nb10c8 b1c3\n")
    mails = post.move(board, "bob", "h10g8")                # the tree's h1g3, not the queued b1c3
    alice = " ".join(text(next(m for m in mails if m["To"] == A)).split())
    assert "alice played h1g3 (H2+3) (Auto)." in alice
    assert "Your conditional move h1g3 was played instead of your queued b1c3, so your queue was " \
           "cleared." in alice
    assert post.db.execute("SELECT count(*) FROM premoves").fetchone() == (0,)
    post.send(f"xiangqi queue {board} alice Sw0rdfish i1h1")
    post.send(f"xiangqi queue {board} alice Sw0rdfish a1a2")
    post.send(f"xiangqi conditional {board} alice Sw0rdfish", "i10h10 R1=2\n")
    mails = post.move(board, "bob", "i10h10")               # the same move: the queue goes on
    assert "alice played i1h1 (R1=2) (Auto)." in " ".join(text(mails[-1]).split())
    assert post.db.execute("SELECT move FROM premoves").fetchall() == [("a1a2",)]
