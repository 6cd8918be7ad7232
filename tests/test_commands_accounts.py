"""Server commands over real mail bytes: signup, change password/address, signoff, help, list,
and the errors of each -- with every mail scanned for the passwords used."""
from __future__ import annotations

import pytest
from support.postoffice import PASSWORDS, flat, text

from pbm.model.players import accounts

pytestmark = pytest.mark.post_office()


def test_signup_welcomes_and_stores_only_a_hash(post):
    [welcome] = post.send("signup Alice Sw0rdfish")
    assert welcome["To"] == "alice@example.org"
    assert welcome["Auto-Submitted"] == "auto-replied"
    assert "You are signed up as alice" in flat(welcome)
    [(stored,)] = post.db.execute("SELECT password FROM users WHERE id = 'alice'").fetchall()
    assert stored.startswith("scrypt$16384$8$1$") and "Sw0rdfish" not in stored


def test_signup_with_addresses_sends_game_mail_to_the_first_once_confirmed(post):
    mails = post.send("signup bob Hunter22 Bob@Home.example.org bob@work.example.org", sender="x@example.org")
    asks = {m["To"]: m for m in mails if "confirm your address" in m["Subject"]}
    assert set(asks) == {"bob@home.example.org", "bob@work.example.org"}
    assert post.db.execute("SELECT count(*) FROM addresses WHERE user_id = 'bob'").fetchone() == (0,)
    for address in ("bob@work.example.org", "bob@home.example.org"):
        [done] = post.reply(asks[address], "yes")
        assert f"{address} now gets the mail of bob" in flat(done)
    assert post.db.execute("SELECT address, position FROM addresses WHERE user_id = 'bob' ORDER BY position"
                           ).fetchall() == [("bob@home.example.org", 0), ("bob@work.example.org", 1)]
    post.signup("alice")
    mails = post.send("xiangqi challenge alice bob", sender="alice@example.org")
    assert [m["To"] for m in mails] == ["alice@example.org", "bob@home.example.org"]


@pytest.mark.parametrize("subject, problem", [
    ("signup 1alice Sw0rdfish", "cannot be a user id: a user id is 2 to 16 letters"),
    ("signup next Sw0rdfish", "next is a word the commands use"),
    ("signup alice abc", "a password is 8 to 64 characters"),
    ("signup alice apple77", "a password is 8 to 64 characters"),
    ("signup alice 31415926", "may not be all digits"),
    ("signup alicesmith AliceSmith", "may not be the same as the user id"),
    ("signup alice Sw0rdfish not-an-address", "******** is not a mail address"),
    ("signup alice Sw0rdfish pbm+x@pbm.test", "is this server's own address"),
    ("signup alice", "signup takes 2 to 11 words after the verb, and your command has 1"),
])
def test_signup_errors_say_what_would_be_right(post, subject, problem):
    [error] = post.send(subject)
    assert error["Subject"] == "pbm test error"
    assert problem in flat(error)
    assert "Usage:\n    signup USERID PASSWORD [ADDRESS...]" in text(error)


def test_signup_twice_is_refused_without_quoting_the_password(post):
    post.signup("alice")
    [error] = post.send("signup alice Sw0rdfish", sender="other@example.org")
    assert "The user id alice is already taken" in flat(error)
    # a mistaken signup never quotes a word that may be a password in the wrong place: the "user
    # id" alice may not, being shorter than any password
    assert "signup alice ********" in flat(error)


def test_a_password_starting_with_a_dash_is_refused(post):
    # "-secret" reads as a parameter, so the command lacks its password; nothing may be quoted back
    [error] = post.send("signup alice -Sw0rdfish")
    assert "Sw0rdfish" not in text(error) and "signup alice ********" in flat(error)


def test_change_password(post):
    post.signup("alice")
    [done] = post.send("change password alice Sw0rdfish N3w-pass")
    assert done["Subject"] == "pbm test: password changed for alice"
    [error] = post.send("change password alice Sw0rdfish Other-pw")
    assert "Invalid password for alice" in flat(error)
    assert "change password alice ******** ********" in flat(error)
    assert "N3w-pass" not in text(done) + text(error)
    [done] = post.send("change password alice N3w-pass Sw0rdfish")
    assert "has been changed" in flat(done)


def test_change_address(post):
    post.signup("alice")
    [ask, done] = post.send("change address alice Sw0rdfish alice@new.example.org alice@example.org")
    assert "Game mail goes to alice@example.org" in flat(done) and "Waiting for confirmation" in flat(done)
    assert ask["To"] == "alice@new.example.org"
    post.reply(ask, "confirmed")
    assert accounts.addresses(post.db, "alice") == ["alice@new.example.org", "alice@example.org"]
    [error] = post.send("change address alice Sw0rdfish")
    assert "change address takes 3 to 7 words" in flat(error)
    assert "change address alice ********" in flat(error)       # a registered user id is no secret


def test_signoff_waits_for_running_games(post):
    post.signup("alice", "bob")
    board = post.challenge()
    [error] = post.send("signoff alice Sw0rdfish")
    assert f"alice still plays in Xiangqi Board {board}" in flat(error)
    post.send(f"xiangqi resign {board} alice Sw0rdfish")
    [done] = post.send("signoff alice Sw0rdfish")
    assert "alice has signed off" in flat(done)
    [error] = post.send(f"xiangqi show {board}")
    assert "There is no Xiangqi Board 101 (it was declined and deleted)" in flat(error)
    [error] = post.send("change password alice Sw0rdfish Whatever1")
    assert "alice has signed off; that account can no longer be used" in flat(error)
    [error] = post.send("signup alice Sw0rdfish")
    assert "already taken" in flat(error)


def test_wrong_password_and_unknown_user_mask_every_unchecked_word(post):
    post.signup("alice", "bob")
    board = post.challenge()
    # user id and password swapped: the "user id" is the password, so it must not be quoted
    [error] = post.send(f"xiangqi move {board} Sw0rdfish alice h3e3")
    assert "The user id in your command is not registered here" in flat(error)
    assert f"xiangqi move {board} ******** ******** h3e3" in flat(error)   # alice stood where
    # the password goes, so it is masked by value; password and move swapped
    [error] = post.send(f"xiangqi move {board} alice h3e3 Sw0rdfish")
    assert "Invalid password for alice" in flat(error)
    assert f"xiangqi move {board} alice ******** ********" in flat(error)
    # too few words: nothing but the verb, board numbers and registered user ids
    [error] = post.send(f"xiangqi move {board} alice Sw0rdfish")
    assert f"xiangqi move {board} alice ********" in flat(error)
    # an unknown verb
    [error] = post.send(f"xiangqi mvoe2 {board} alice Sw0rdfish h3e3")
    assert "is not one (did you mean move?)" in flat(error)
    # the typo is quoted as written, too short to be a password; an unchecked longer word is not
    assert f"xiangqi mvoe2 {board} alice ******** h3e3" in flat(error)
    [error] = post.send(f"xiangqi Sw0rdfish {board} alice h3e3")
    assert f"xiangqi ******** {board} alice h3e3" in flat(error)


@pytest.mark.post_office(answers_per_day=100)     # a stranger asks for more than 5 pages
def test_help_pages(post):
    [page] = post.send("help")
    assert page["Subject"] == "pbm test help"
    body = text(page)
    for usage in ("signup USERID PASSWORD [ADDRESS...]", "GAME move BOARD USERID PASSWORD MOVE[#N]",
                  "GAME adjudicate BOARD ADMINID PASSWORD WINNER|draw [REASON...]", "all show USERID"):
        assert usage in body
    [page] = post.send("help mvoe")
    assert page["Subject"] == "pbm test help: move" and "received" not in text(page)
    assert "GAME move BOARD USERID PASSWORD MOVE[#N]" in flat(page)
    [page] = post.send("help change password")
    assert "change password USERID OLD NEW" in flat(page)
    [page] = post.send("help multiple")
    assert "up to the first blank line" in flat(page)
    [page] = post.send("help reply")
    assert "No user id or password is needed" in flat(page)
    [page] = post.send("help tournament")
    assert "Any system may be --paired: every pairing is two games, colours reversed" in flat(page)
    assert "--teams=N makes a tournament of teams of N boards" in flat(page)
    [error] = post.send("help chess")
    assert "There is no help on \"chess\"" in flat(error)


def test_game_help_has_the_rules_the_board_and_the_commands(post):
    for subject in ("xiangqi help", "help xiangqi", "XIANGQI HELP"):
        [page] = post.send(subject)
        assert page["Subject"] == "Xiangqi help"
        body = text(page)
        assert "The Soldier can never move backward" not in body      # rewritten, not pasted
        assert "Cannons capture by jumping over exactly one piece" in " ".join(body.split())
        assert "10  bR--bH--bE--bG--bK--bG--bE--bH--bR 10   Black" in body
        assert "xiangqi queue BOARD USERID PASSWORD MOVE|clear" in body


def test_list_and_unknown_commands(post):
    [page] = post.send("list")
    assert "xiangqi      Xiangqi      0 running games" in text(page)
    [error] = post.send("hello there")
    assert error["Subject"] == "pbm test error"
    # an unknown word is quoted only if it is too short to be a password sent alone
    assert "The first word is neither a command nor a game's name." in flat(error)
    assert "hello there" in flat(error)
    [error] = post.send("Sw0rdfish there")
    assert "Sw0rdfish" not in flat(error) and "******** there" in flat(error)
    [error] = post.send("move 101 alice x h3e3")
    assert "Game commands start with the game's name, for example \"xiangqi move ...\"" in flat(error)
    [error] = post.send("janggi help")
    assert "Janggi is not played on this server yet" in flat(error) or "Janggi help" == error["Subject"]


def test_empty_subject_reads_the_first_body_line(post):
    [welcome] = post.send("", "signup alice Sw0rdfish\nHello!")
    assert welcome["Subject"] == "Welcome to pbm test, alice"


def test_multiple_runs_each_line_until_the_first_blank_line(post):
    mails = post.send("multiple", "signup alice Sw0rdfish\nsignup alice Sw0rdfish\n"
                                  "signup bob Hunter22 bob@example.org\n\nsignup carol c4rol-pw\n")
    assert [m["Subject"] for m in mails] == ["pbm test: the answers to your 3 commands",   # one mail
                                             "pbm test: confirm your address for bob"]    # not the sender's
    headings = [line for line in text(mails[0]).splitlines() if line.startswith("==== ")]
    assert headings == ["==== 1. Welcome to pbm test, alice", "==== 2. pbm test error",
                        "==== 3. Welcome to pbm test, bob"]
    assert post.db.execute("SELECT id FROM users ORDER BY id").fetchall() == [("alice",), ("bob",)]


def test_no_password_in_any_mail(post):
    """The fixture scans every mail at teardown; this test makes sure it has mails to scan."""
    post.signup(*PASSWORDS)
    assert len(post.sent) == len(PASSWORDS)


def test_passwords_can_be_checked_before_the_write_transaction(post):
    """precheck_passwords reads only, and leaves a right password remembered for handle()."""
    from pbm.commands import precheck
    from pbm.model.players import accounts

    post.signup("alice")
    accounts._verified.clear()
    precheck.precheck_passwords(post.db, "Re: signoff alice WRONG-pw", "")
    precheck.precheck_passwords(post.db, "multiple", "change password nobody x y\nhelp\n")
    assert not accounts._verified
    precheck.precheck_passwords(post.db, "multiple", "xiangqi move 101 alice Sw0rdfish h3e3\n\nhi")
    [(stored,)] = post.db.execute("SELECT password FROM users WHERE id = 'alice'").fetchall()
    assert list(accounts._verified) == [stored]
    assert post.db.execute("SELECT count(*) FROM games").fetchone() == (0,)


def test_no_unchecked_word_is_quoted_back(post):
    """The leaks of a password: a password added to a command that takes none, an all-digit password, a
    bare password as the subject, a mistaken signup and a token reply starting with the password are
    all answered with the word masked; existing board numbers, verbs and game names stay readable."""
    post.signup("alice", "bob")
    [turn] = [m for m in post.send("xiangqi challenge alice bob") if m["To"] == "alice@example.org"]
    board = int(turn["Subject"].split()[3])
    cases = {
        f"xiangqi show {board} Sw0rdfish": f"xiangqi show {board} ********",
        "xiangqi move 999 alice 31415926": "xiangqi move 999 alice ********",
        "Sw0rdfish": "Your command\n\n    ********\n",
        "signup John Smith Secret99": "signup John ******** ********",
    }
    for subject, quoted in cases.items():
        [error] = post.send(subject)
        body = text(error)
        assert quoted in body, body
        for word in ("Sw0rdfish", "31415926", "Secret99"):
            assert word not in body
    # a token reply proves who wrote it: the word that is their password is masked, the rest read
    [error] = post.reply(turn, "Sw0rdfish h10g8\n")
    assert "    ******** h10g8\n" in text(error) and "Sw0rdfish" not in text(error)


def test_every_command_word_game_and_colour_is_reserved(post):
    from pbm import catalogue
    from pbm.commands import parse, registry
    from pbm.commands.games import play
    from pbm.model.players import accounts
    words = {w for c in registry.COMMANDS for name in (c.verb, *c.aliases) for w in name.split()}
    words |= set(play.IN_GAME) | set(catalogue.GAMES) | set(parse.SAFE_WORDS) | {"multiple", "pass"}
    assert words <= accounts.RESERVED, words - accounts.RESERVED
    [error] = post.send("signup move Sw0rdfish", sender="m@example.org")
    assert "move is a word the commands use, so it cannot be a user id" in flat(error)
