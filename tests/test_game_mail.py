"""A whole game by mail, end to end: real `pbm serve` over SMTP and real `pbm deliver` pipes, the
replies read from the outbox Maildir, half of the moves sent as replies to the game mails' tokens.
Every mail the server wrote is scanned for the passwords."""
from __future__ import annotations

from support.postoffice import plain
from test_commands_game import MATE

PASSWORDS = {"alice": "Sw0rdfish", "bob": "Hunter22"}


def body(mail) -> str:
    return plain(mail).replace("\r\n", "\n")


def assert_no_password(pbm_env) -> None:
    for path in pbm_env.outbox_files():
        raw = path.read_bytes()
        for password in PASSWORDS.values():
            assert password.encode() not in raw, path


def test_full_game_to_checkmate_over_smtp(pbm_env, pbm_server):
    for user, password in PASSWORDS.items():
        pbm_server.send(pbm_env.message(f"signup {user} {password}", sender=f"{user}@example.org"))
    assert [m["Subject"] for m in pbm_env.wait_replies(2)] == ["Welcome to pbm test, alice",
                                                                "Welcome to pbm test, bob"]
    pbm_server.send(pbm_env.message("xiangqi challenge alice bob", "Have fun", sender="alice@example.org"))
    latest = {m["To"]: m for m in pbm_env.wait_replies(2)}
    assert latest["bob@example.org"]["Subject"] == "New Xiangqi Board 101 alice **"
    players = ["alice", "bob"]
    for ply, move in enumerate(MATE):
        mover = players[ply % 2]
        if ply % 2 == 0:        # alice writes commands ...
            pbm_server.send(pbm_env.message(f"xiangqi move 101 {mover} {PASSWORDS[mover]} {move}#{ply + 1}",
                                            sender=f"{mover}@example.org"))
        else:                   # ... bob answers the game mail with just the move
            mail = latest[f"{mover}@example.org"]
            reply = pbm_env.message(f"Re: {mail['Subject']}", f"{move}\n\nYour move.",
                                    sender=f"{mover}@example.org", to=mail["Reply-To"],
                                    In_Reply_To=mail["Message-ID"])
            pbm_server.send(reply, rcpt_tos=[mail["Reply-To"]])
        latest = {m["To"]: m for m in pbm_env.wait_replies(2)}
    final = latest["bob@example.org"]
    assert final["Subject"] == "Xiangqi Board 101 over: alice won (checkmate)"
    assert "Game won by alice (checkmate)." in body(final)
    assert final["Auto-Submitted"] == "auto-generated"
    assert latest["alice@example.org"]["Auto-Submitted"] == "auto-replied"
    assert "<xiangqi-101@pbm.test>" in final["References"]
    pbm_server.send(pbm_env.message("xiangqi standings", sender="bob@example.org"))
    [table] = pbm_env.wait_replies(1)
    assert "alice" in body(table).split("Rank")[1].splitlines()[1]
    assert pbm_env.query("SELECT status, result, winner, reason FROM games") == [
        ("finished", "1-0", "alice", "checkmate")]
    assert pbm_env.query("SELECT count(*) FROM moves WHERE game_id = 1") == [(len(MATE),)]
    assert_no_password(pbm_env)


def test_commands_through_pbm_deliver(pbm_env):
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.mail("signup bob Hunter22", sender="bob@example.org")
    pbm_env.mail("xiangqi challenge alice bob")
    pbm_env.replies()
    pbm_env.mail("xiangqi move 101 bob Hunter22 h10g8", sender="bob@example.org")
    [error] = pbm_env.replies()
    assert error["Subject"] == "Xiangqi Board 101 Error"
    assert "xiangqi move 101 bob ******** h10g8" in body(error)
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish C2=5")
    mine, theirs = pbm_env.replies()
    assert "alice played h3e3 (C2=5)." in body(theirs)
    pbm_env.reply(theirs, "resign")         # bob declines before his first move
    declined = pbm_env.replies()
    assert "Game declined (bob declined the challenge)" in body(declined[0])
    assert_no_password(pbm_env)


def test_error_paths_and_an_admin_ruling_through_pbm_deliver(pbm_env):
    """The error answers of mail.md, each from a real `pbm deliver` process, and an adjudication."""
    pbm_env.mail("signup alice Sw0rdfish")
    pbm_env.mail("signup bob Hunter22", sender="bob@example.org")
    pbm_env.mail("signup root R00t-admin", sender="root@example.org")
    pbm_env.mail("xiangqi challenge alice bob", sender="mallory@example.org")
    pbm_env.mail("xiangqi challenge alice bob")
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish e4e6")
    pbm_env.mail("xiangqi move 101 alice wrong-pw h3e3")
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish h3e3#4")
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish zz9")
    pbm_env.mail("xiangqi mvoe 101 alice Sw0rdfish h3e3")            # the pbmserv alias plays
    pbm_env.mail("xiangqi move 101 alice Sw0rdfish h10g8")
    pbm_env.mail("xiangqi frobnicate 101")
    pbm_env.mail("xiangqi adjudicate 101 alice Sw0rdfish alice")     # alice is no admin
    pbm_env.mail("xiangqi adjudicate 101 root R00t-admin bob lost on time at the club",
                 sender="root@example.org")
    texts = [(m["To"], m["Subject"], body(m)) for m in pbm_env.replies()]
    errors = [text for to, subject, text in texts if subject.endswith("Error") or "error" in subject]
    expected = [
        "registered",                                   # challenge from a stranger's address
        "e4e6 is not a legal move: the soldier on e4 can go to e5",
        "Invalid password for alice",
        "received as move #4",
        "zz9",
        "It is not your move on Xiangqi Board 101",
        "is its verb, and that word is not one",
        "admin",
    ]
    assert len(errors) == len(expected), [t[:2] for t in texts]
    for text, fragment in zip(errors, expected):
        assert fragment in text, text
    ruling = [text for to, subject, text in texts if "Game won by bob" in text]
    assert {to for to, subject, text in texts if "Game won by bob" in text} >= {
        "alice@example.org", "bob@example.org"}
    assert all("root" in text and "lost on time at the club" in text for text in ruling)
    raw = b"".join(p.read_bytes() for p in pbm_env.outbox_files())
    for password in ("Sw0rdfish", "Hunter22", "R00t-admin", "wrong-pw"):
        assert password.encode() not in raw
