"""Clocks that never cheat a player, through real `pbm deliver` and `pbm timers` processes with the
time set by PBM_NOW (pbm.clock): the MX's time of a move, late moves, outage credit, autoleave, the
digest, the reliability line and the cap on a clock's bank."""
from __future__ import annotations

from datetime import datetime, timedelta, timezone
from email.message import EmailMessage
from email.utils import format_datetime

from support.postoffice import by_recipient, plain
from support.processes import PbmEnv

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22"}
A, B = "alice@example.org", "bob@example.org"
MX = "mx.pbm.test"
# A month ago at noon, so that every mail queued at a later game time is due now.
START = (datetime.now(timezone.utc) - timedelta(days=30)).replace(hour=12, minute=0, second=0,
                                                                    microsecond=0)


def flat(mail: EmailMessage) -> str:
    return " ".join(plain(mail).split())


class Table:
    """alice and bob at a game through `pbm deliver`; the time moves only when told."""

    def __init__(self, env: PbmEnv, options: str = "") -> None:
        self.env, self.now = env, START
        for user in PASSWORDS:
            self.send(user, f"signup {user} {PASSWORDS[user]}")
        self.send("alice", f"xiangqi challenge {options} alice bob".replace("  ", " "))

    def send(self, user: str, subject: str, received: tuple[str, datetime] | None = None
             ) -> dict[str, EmailMessage]:
        """Mail `subject` from `user` (with a `Received:` line by host `received[0]`, dated
        `received[1]`, on top); the replies, by recipient."""
        message = self.env.message(subject, sender=f"{user}@example.org")
        if received:
            message["Received"] = (f"from client.example.org (client.example.org [192.0.2.7]) by "
                                   f"{received[0]} (Postfix) with ESMTPS id 4Xz for <pbm@pbm.test>; "
                                   f"{format_datetime(received[1])}")
        result = self.env.deliver(message, PBM_NOW=self.now.isoformat())
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return by_recipient(self.env.replies())

    def move(self, user: str, move: str, board: int = 101, **how) -> dict[str, EmailMessage]:
        return self.send(user, f"xiangqi move {board} {user} {PASSWORDS[user]} {move}", **how)

    def timers(self) -> dict[str, EmailMessage]:
        return by_recipient(self.timer_mails())

    def timer_mails(self) -> list[EmailMessage]:
        result = self.env.run("timers", PBM_NOW=self.now.isoformat())
        assert result.returncode == 0, result.stderr.decode(errors="replace")
        return self.env.replies()

    def later(self, **delta: float) -> None:
        self.now += timedelta(**delta)

    def deadline(self, board: int = 101) -> datetime:
        [(deadline,)] = self.env.query("SELECT deadline FROM games WHERE board = ?", (board,))
        return datetime.fromisoformat(deadline)


def started(env: PbmEnv, options: str = "--timeout=1") -> Table:
    """alice has moved, bob has answered (so both clocks run): alice's turn, a day to move."""
    table = Table(env, options)
    table.move("alice", "h3e3")
    table.later(hours=1)
    table.move("bob", "h10g8")
    return table


def test_a_move_stamped_in_time_by_the_trusted_mx_counts_though_processed_late(pbm_env: PbmEnv) -> None:
    pbm_env.configure(security={"authserv_id": MX})
    table = started(pbm_env)
    stamped = table.deadline() - timedelta(hours=1)
    table.now = stamped + timedelta(hours=3)                 # the MTA held it for three hours
    mails = table.move("alice", "h1g3", received=(MX, stamped))
    assert "alice played h1g3 (H2+3)." in flat(mails[B])
    [(played,)] = pbm_env.query("SELECT played_at FROM moves WHERE ply = 3")
    assert datetime.fromisoformat(played) == stamped        # played when it reached the MX
    # bob's day runs from the time alice's move reached the MX
    assert table.deadline() == stamped + timedelta(days=1)


def test_a_received_line_by_another_host_is_not_believed(pbm_env: PbmEnv) -> None:
    pbm_env.configure(security={"authserv_id": MX})
    table = started(pbm_env)
    stamped = table.deadline() - timedelta(hours=1)
    table.now = stamped + timedelta(hours=3)
    mails = table.move("alice", "h1g3", received=("relay.example.net", stamped))
    for mail in (mails[A], mails[B]):
        assert "alice has lost on time: the limit is 1 day per move." in flat(mail)
        assert "the move h1g3 arrived at" in flat(mail) and "it was not played" in flat(mail)
    assert pbm_env.query("SELECT count(*), max(ply) FROM moves") == [(2, 2)]
    assert pbm_env.query("SELECT status, winner FROM games") == [("finished", "bob")]


def test_a_move_after_the_clock_ran_out_with_no_timer_between_ends_the_game_on_time(
        pbm_env: PbmEnv) -> None:
    table = started(pbm_env, "--clock=1+0")
    table.later(days=1, minutes=1)                          # alice's bank is spent; no timer ran
    mails = table.move("alice", "h1g3")
    assert "alice has lost on time: the limit is 1 day in all." in flat(mails[B])
    assert pbm_env.query("SELECT status, winner, reason FROM games") == [
        ("finished", "bob", "alice ran out of time")]
    assert table.timers() == {}                             # nothing left for the timer to rule


def test_a_twenty_hour_gap_between_heartbeats_is_given_back_and_an_hour_is_not(pbm_env: PbmEnv) -> None:
    pbm_env.configure(clocks={"outage_after": 2.0})
    table = started(pbm_env)
    due = table.deadline()
    table.now = due - timedelta(hours=2)
    table.timers()                                          # the last heartbeat before the outage
    table.now = due + timedelta(hours=18)                   # 20 hours later: no time-out
    assert table.timers() == {}
    assert table.deadline() == due + timedelta(hours=20)
    mails = table.move("alice", "h1g3")
    down, up = (f"{t:%Y-%m-%d %H:%M}" for t in (due - timedelta(hours=2), due + timedelta(hours=18)))
    assert f"The server was down from {down} to {up} UTC: alice's clock got 20 hours back." \
        in flat(mails[B])
    assert "got 20 hours back" not in flat(table.move("bob", "i10h10")[A])   # told once

    doctor = pbm_env.run("doctor").stdout.decode()
    assert "the last outage: no heartbeat from" in doctor and "(20.0 hours)" in doctor


def test_an_hour_between_heartbeats_is_no_outage(pbm_env: PbmEnv) -> None:
    pbm_env.configure(clocks={"outage_after": 2.0})
    table = started(pbm_env)
    due = table.deadline()
    table.now = due - timedelta(minutes=30)
    table.timers()
    table.now = due + timedelta(minutes=30)
    mails = table.timers()
    assert "alice has lost on time" in flat(mails[A]) and "back." not in flat(mails[A])
    assert pbm_env.query("SELECT count(*) FROM outages") == [(0,)]


def test_autoleave_spends_a_vacation_day_then_the_game_is_lost(pbm_env: PbmEnv) -> None:
    pbm_env.configure(server={"vacation_days": 2.0})
    table = started(pbm_env)
    [answer] = table.send("alice", "set alice Sw0rdfish autoleave=on").values()
    assert "autoleave=on" in plain(answer)
    due = table.deadline()
    for spent in (1, 2):
        table.now = due + timedelta(minutes=5)
        mails = table.timers()
        assert set(mails) == {A, B}
        assert "one of their vacation days was spent instead of the game (autoleave)" in flat(mails[B])
        assert f"Vacation days left this year: {2 - spent}." in flat(mails[A])
        assert table.deadline() == due + timedelta(days=1)
        due = table.deadline()
    table.now = due + timedelta(minutes=5)
    mails = table.timers()
    assert "alice has lost on time" in flat(mails[B])
    assert pbm_env.query("SELECT count(*), sum(automatic) FROM vacations") == [(2, 2)]


def test_the_digest_lists_the_games_waiting_least_time_first_once_a_day(pbm_env: PbmEnv) -> None:
    table = Table(pbm_env, "--timeout=5")                   # board 101: five days a move
    table.send("alice", "xiangqi challenge --timeout=3 alice bob")          # 102: three days
    table.send("alice", "xiangqi challenge alice bob")                      # 103: no limit
    for board in (101, 102, 103):
        table.move("alice", "h3e3", board=board)
        table.move("bob", "h10g8", board=board)
    table.send("alice", "set alice Sw0rdfish digest=daily")
    table.send("bob", "set bob Hunter22 digest=daily")      # nothing waits for bob
    table.now = (table.now + timedelta(days=1)).replace(hour=5)
    assert table.timers() == {}                             # before the hour
    table.later(hours=1, minutes=10)
    [digest] = table.timers().values()
    assert digest["To"] == A and digest["Subject"] == "pbm test: your move in 3 games"
    text = plain(digest)
    assert text.index("Board 102") < text.index("Board 101") < text.index("Board 103")
    assert "Xiangqi Board 102, against bob: 2 days 5 hours left" in flat(digest)
    assert "Last move: h10g8 (H8+7)" in text and "Reply with your move to: pbm+" in text
    assert "Board 103, against bob: no time limit" in flat(digest)
    table.later(hours=3)
    assert table.timers() == {}                             # once a day
    table.send("alice", "set alice Sw0rdfish lang=ko")
    table.later(days=1)
    [digest] = [mail for mail in table.timer_mails() if "Board" not in mail["Subject"]]
    assert digest["To"] == A and "h10g8" in plain(digest) and "waiting" not in plain(digest)



def test_the_reliability_line_and_a_tournament_that_asks_for_it(pbm_env: PbmEnv) -> None:
    table = started(pbm_env)
    table.later(hours=12)
    table.move("alice", "h1g3")                             # after 12 hours
    table.later(days=2)
    table.timers()                                          # bob times out
    [profile] = table.send("alice", "xiangqi player bob").values()
    assert "Time-outs in the last 12 months: 1" in flat(profile)
    assert "Days per move, on average over the last move (vacations left out): 0.0" in flat(profile)
    [profile] = table.send("bob", "xiangqi player alice").values()
    assert "Time-outs in the last 12 months: 0" in flat(profile)
    assert "over the last move (vacations left out): 0.5" in flat(profile)
    table.send("alice", "xiangqi tournament create spring alice Sw0rdfish --system=roundrobin "
                        "--max-timeouts=0")
    [refused] = table.send("bob", "xiangqi tournament join spring bob Hunter22").values()
    assert "spring takes players with at most 0 time-outs in the last 12 months" in flat(refused)
    [joined] = table.send("alice", "xiangqi tournament join spring alice Sw0rdfish").values()
    assert "You have entered" in flat(joined)


def test_a_capped_bank_never_holds_more_than_its_cap(pbm_env: PbmEnv) -> None:
    table = started(pbm_env, "--clock=2+1/2.5")
    mails = table.move("alice", "h1g3")
    assert "Clock: 2 days + 1 day a move, at most 2.5 days; weekends count." in flat(mails[B])
    assert "alice has 2 days 12 hours left." in flat(mails[B])
    assert pbm_env.query("SELECT left1 FROM clocks") == [(2.5 * 86400,)]
    [error] = table.send("alice", "xiangqi challenge --clock=2+1 --clock=9+1 alice bob").values()
    assert "--clock=9+1 repeats an option given before it in the command" in flat(error)
    [error] = table.send("alice", "xiangqi challenge --clock=3+1/2 alice bob").values()
    assert "the cap after / is the most days the clock may hold: at least the bank (3)" in flat(error)
