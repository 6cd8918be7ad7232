"""Vacations: `vacation USERID PASSWORD DAYS|off` stops every clock of the player, within
a yearly allowance; the opponents are told, status shows it, and the timers (with an injected clock)
neither time the player out nor remind them until it ends."""
from __future__ import annotations

from support.postoffice import PASSWORDS, PostOffice, text


def by_to(mails):
    return {m["To"]: m for m in mails}


def lost_on_time(mails) -> bool:
    return any("lost on time" in text(m) for m in mails)


def started(post: PostOffice) -> None:
    post.signup("alice", "bob")
    post.send("xiangqi challenge --timeout=2 alice bob")
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h10g8")          # bob's consent: from here on his clock runs
    post.move(101, "alice", "h1g3")         # bob to move, 2 days


def test_a_vacation_carries_a_game_past_what_would_have_been_a_time_out(tmp_path):
    post = PostOffice(tmp_path)
    started(post)
    mails = by_to(post.send(f"vacation bob {PASSWORDS['bob']} 5", sender="bob@example.org"))
    assert "bob is on vacation until 2024-03-06" in " ".join(text(mails["bob@example.org"]).split())
    assert "Clocks stopped now: Xiangqi Board 101" in text(mails["bob@example.org"])
    assert "bob is on vacation until" in text(mails["alice@example.org"])      # the opponent told

    assert not lost_on_time(post.tick(3))                  # 3 days: past the 2-day limit
    [status] = post.send("xiangqi status 101")
    assert "bob is on vacation until 2024-03-06" in text(status)
    chat = by_to(post.send(f"xiangqi chat 101 alice {PASSWORDS['alice']}", "Enjoy!"))
    assert "their clock is stopped" in text(chat["bob@example.org"])

    over = post.tick(2.5)                                  # the vacation ended half a day ago
    [back] = [m for m in over if "vacation over" in m["Subject"]]
    assert back["To"] == "bob@example.org" and "Your move on: Xiangqi Board 101 (move by" in text(back)
    assert not lost_on_time(post.tick(1.2))                # the 2 days left run from its end
    assert lost_on_time(post.tick(1))


def test_the_yearly_allowance_and_coming_back_early(tmp_path):
    post = PostOffice(tmp_path)
    started(post)
    vacation = f"vacation bob {PASSWORDS['bob']}"
    [error] = post.send(f"{vacation} 31", sender="bob@example.org")
    assert "bob has 30 of this year's 30 days left" in " ".join(text(error).split())
    post.send(f"{vacation} 20", sender="bob@example.org")
    post.tick(4)
    [back] = post.send(f"{vacation} off", sender="bob@example.org")  # 4 days taken, 16 given back
    assert "vacation is over" in text(back) and "(move by 2024-03-07" in text(back)
    [error] = post.send(f"{vacation} 27", sender="bob@example.org")
    assert "26 of this year's 30 days left" in " ".join(text(error).split())
    [error] = post.send(f"{vacation} off", sender="bob@example.org")
    assert "bob is not on vacation" in text(error)
    [error] = post.send(f"{vacation} soon", sender="bob@example.org")
    assert "DAYS is a number of days" in text(error)
    assert not lost_on_time(post.tick(1.5)) and lost_on_time(post.tick(1))


def test_a_turn_that_comes_during_a_vacation_waits_with_the_whole_limit(tmp_path):
    post = PostOffice(tmp_path)
    started(post)
    post.move(101, "bob", "h8h4")
    post.send(f"vacation alice {PASSWORDS['alice']} 3")     # not alice's turn: nothing stops yet
    mails = by_to(post.move(101, "alice", "i1h1"))          # alice may move while away
    assert "alice is on vacation until" in text(mails["bob@example.org"])
    post.move(101, "bob", "b10c8")                          # alice's turn: her clock stands
    assert not lost_on_time(post.tick(2.9))
    post.tick(0.2)                                          # back: 2 whole days from now
    assert not lost_on_time(post.tick(1.9))
    assert lost_on_time(post.tick(0.2))


def test_vacation_through_pbm_deliver(pbm_env):
    for user in ("alice", "bob"):
        pbm_env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    pbm_env.replies()
    pbm_env.mail(f"vacation alice {PASSWORDS['alice']} 2")
    [answer] = pbm_env.replies()
    assert "alice is on vacation until" in text(answer) and PASSWORDS["alice"] not in text(answer)


def test_a_vacation_stops_a_clock_with_a_bank(tmp_path):
    post = PostOffice(tmp_path)
    post.signup("alice", "bob")
    post.send("xiangqi challenge --clock=3+1 alice bob")
    post.move(101, "alice", "h3e3")
    post.move(101, "bob", "h10g8")                          # alice to move, 4 days on her clock
    post.tick(1)
    post.send(f"vacation alice {PASSWORDS['alice']} 10")
    assert not lost_on_time(post.tick(5))                   # past the 3 days she had left
    [status] = post.send("xiangqi status 101", sender="bob@example.org")
    assert "alice has 3 days left (stopped: on vacation)." in text(status)
    post.send(f"vacation alice {PASSWORDS['alice']} off")
    [status] = post.send("xiangqi status 101", sender="bob@example.org")
    assert "alice has 3 days left." in text(status)         # running again, from there
    assert lost_on_time(post.tick(3.01))
