"""No mail cannon: a forged From is free, so what one mail brings its From is
bounded -- a `multiple` mail is answered with one mail, and an address that is no player's gets at
most `[server] answers_per_day` answers a day, then silence.  Real `pbm deliver` processes, real
RFC 5322 bytes, the outbox Maildir as the MTA would get it."""
from __future__ import annotations

from support.postoffice import PASSWORDS, by_recipient, text

VICTIM = "victim@third.org"


def signed_up(env, *users: str) -> None:
    for user in users:
        env.mail(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    env.replies()


def test_a_forged_multiple_of_sixty_shows_is_one_mail(pbm_env):
    signed_up(pbm_env, "alice", "bob")
    pbm_env.mail("xiangqi challenge alice bob", sender="alice@example.org")
    pbm_env.replies()
    pbm_env.mail("multiple", "\n".join(["xiangqi show 101"] * 60), sender=VICTIM)
    [one] = pbm_env.replies()                                   # was 51 mails, 855 KB
    assert one["To"] == VICTIM and one["Subject"] == "pbm test: the answers to your 51 commands"
    body = text(one)
    assert body.count("Summary of Xiangqi Board 101") == 50
    assert "Only the first 50 commands of a multiple mail are carried out" in " ".join(body.split())
    assert one.get_content_type() == "text/plain" and one["Reply-To"] is None
    assert max(len(line) for line in body.splitlines() if "://" not in line) <= 78
    assert len(bytes(one)) < 100_000


def test_a_players_multiple_keeps_the_mails_to_others(pbm_env):
    """alice moves in two games with one mail: her answers are one mail, each opponent still gets
    their own game mail with its reply address."""
    signed_up(pbm_env, "alice", "bob", "carol")
    pbm_env.mail("xiangqi challenge alice bob", sender="alice@example.org")
    pbm_env.mail("xiangqi challenge alice carol", sender="alice@example.org")
    pbm_env.replies()
    password = PASSWORDS["alice"]
    pbm_env.mail("multiple", f"xiangqi move 101 alice {password} h3e3\n"
                             f"xiangqi move 102 alice {password} b3e3\n\nGood luck!",
                 sender="alice@example.org")
    mails = pbm_env.replies()
    assert sorted(mail["To"] for mail in mails) == ["alice@example.org", "bob@example.org", "carol@example.org"]
    got = by_recipient(mails)
    assert got["alice@example.org"]["Subject"] == "pbm test: the answers to your 2 commands"
    assert got["alice@example.org"]["Reply-To"] is None         # two games: no one reply address
    for user, board in (("bob", 101), ("carol", 102)):
        mail = got[f"{user}@example.org"]
        assert mail["Subject"].startswith(f"Xiangqi Board {board}") and mail["Reply-To"].startswith("pbm+")
        assert "Good luck!" in text(mail)
    assert "Xiangqi Board 101" in text(got["alice@example.org"])
    assert "Xiangqi Board 102" in text(got["alice@example.org"])


def test_a_forged_flood_gets_the_cap_then_silence(pbm_env):
    """`ruling`, `show` and `help` forged from a stranger's address: five answers a day, the fifth
    saying so, then nothing; a new day, another.  A player's own address is not capped (alice
    was answered twice before, for her signup and her challenge, and then 4 times)."""
    signed_up(pbm_env, "alice", "bob")
    pbm_env.mail("xiangqi challenge alice bob", sender="alice@example.org")
    pbm_env.replies()
    day = "2031-05-0{}T10:00:00+00:00"
    answered = []
    for subject in ["xiangqi ruling 101", "xiangqi show 101", "help"] * 2 + ["help"]:
        result = pbm_env.deliver(pbm_env.message(subject, sender=VICTIM), PBM_NOW=day.format(1))
        assert result.returncode == 0
        answered += pbm_env.replies()
    assert [mail["To"] for mail in answered] == [VICTIM] * 5
    assert "answered 5 times in the last day" in " ".join(text(answered[-1]).split())
    assert not any("answered" in text(mail) for mail in answered[:4])
    result = pbm_env.deliver(pbm_env.message("help", sender=VICTIM), PBM_NOW=day.format(2))
    assert result.returncode == 0 and len(pbm_env.replies()) == 1       # a day later
    for _ in range(4):
        pbm_env.mail("help", sender="alice@example.org")
    assert len(pbm_env.replies()) == 4


def test_the_cap_is_a_setting(pbm_env):
    pbm_env.configure(server={"answers_per_day": 2})
    for _ in range(3):
        pbm_env.mail("help", sender=VICTIM)
    mails = pbm_env.replies()
    assert len(mails) == 2
    assert "answered 2 times in the last day" in " ".join(text(mails[1]).split())
