"""Tournament commands in process (the `pbm deliver` runs are in test_tournament_mail.py): what is
refused and why, who may direct, and the ways a round ends besides a resignation -- a time-out,
an administrator's ruling, a player who withdraws."""
from __future__ import annotations

import pytest
from support.postoffice import PASSWORDS, PostOffice, flat, text

pytestmark = pytest.mark.post_office("alice", "bob", "carol", "root")


def cmd(post: PostOffice, user: str, line: str, body: str = "") -> list:
    return post.send(line.replace("PW", PASSWORDS[user]), body, sender=f"{user}@example.org")


def answer(post: PostOffice, user: str, line: str) -> str:
    [reply] = cmd(post, user, line)
    return flat(reply)


def entered(post: PostOffice, options: str, players=("alice", "bob", "carol")) -> None:
    cmd(post, "alice", f"xiangqi tournament create cup alice PW {options}")
    for user in players:
        cmd(post, user, f"xiangqi tournament join cup {user} PW")


def pairings(post: PostOffice) -> list[tuple]:
    return post.db.execute("SELECT p.round, p.white, p.black, p.result, g.board FROM tournament_games p "
                           "LEFT JOIN games g ON g.id = p.game_id ORDER BY p.round, p.id").fetchall()


@pytest.mark.parametrize("options, refusal", [
    ("", "A tournament needs its system: --system=roundrobin, --system=swiss or --system=knockout."),
    ("--system=ladder", "--system=knockout, not --system=ladder."),
    ("--system=swiss", "A Swiss tournament needs its number of rounds: --rounds=N with N from 1 to 50."),
    ("--system=swiss --rounds=0", "from 1 to 50, not --rounds=0."),
    ("--system=knockout --rounds=3", "--rounds is for Swiss tournaments: a knockout has as many rounds"),
    ("--system=swiss --rounds=3 --double", "--double (alone, without a value) makes a double round robin"),
    ("--system=roundrobin --clock=0.5+1", "the bank must be at least one day"),
    ("--system=roundrobin --timeout=0.1", "--timeout=0.1 is shorter than this server allows"),
    ("--system=roundrobin -nonsense", "Parameters every game takes"),
    ("--system=roundrobin maybe", "The last word of tournament create is rated or unrated"),
    ("--system=knockout --tiebreaks=SB", "--tiebreaks is for round robins and Swiss tournaments"),
    ("--system=roundrobin --tiebreaks=SB,BH-C1", "--tiebreaks=SB,BH-C1: BH-C1 is a Buchholz, which "
     "FIDE's rules do not use in a round robin, where everyone meets everyone. Choose from: SB,"),
    ("--system=swiss --rounds=3 --tiebreaks=BH,XY", "--tiebreaks=BH,XY: \"XY\" is not a tie-break "
     "pbm knows, or it is there twice. Give FIDE's abbreviations, each once, in order, for example "
     "--tiebreaks=BH-C1,BH,SB; from: BH,BH-C1,BH-C2,BH-M1,BH-M2,SB,SB-C1,DE,WIN,WON,BPG,BWG,PS,ARO."),
    ("--system=swiss --rounds=3 --tiebreaks=BH,bh", "\"BH\" is not a tie-break pbm knows, or it is "
     "there twice."),
    ("--system=swiss --rounds=3 --band=1800-1400", "--band=1800-1400 is not a rating band: write "
     "--band=MIN-MAX, the lowest and the highest rating that may join, for example --band=1400-1800."),
    ("--system=swiss --rounds=3 --band=high", "--band=high is not a rating band"),
    ("--system=roundrobin --theme=h3e3,h3e3", "--theme=h3e3,h3e3: move 2, h3e3, cannot be played:"),
    ("--system=roundrobin --theme=,", "--theme=, leaves no game to play: give the opening moves"),
])
def test_create_says_what_is_wrong(post, options, refusal):
    assert refusal in answer(post, "alice", f"xiangqi tournament create cup alice PW {options}")
    assert post.db.execute("SELECT count(*) FROM tournaments").fetchone() == (0,)


def test_names_are_checked_and_unique_per_game_whatever_their_case(post):
    assert "spring_26 is not a tournament name: use 2 to 24 letters, digits and hyphens" in answer(
        post, "alice", "xiangqi tournament create spring_26 alice PW --system=swiss --rounds=2")
    assert "You direct it." in answer(post, "alice", "xiangqi tournament create Spring-26 alice PW "
                                                     "--system=swiss --rounds=2")
    assert "There is already a Xiangqi tournament called spring-26" in answer(
        post, "bob", "xiangqi tournament create SPRING-26 bob PW --system=knockout")
    assert "You direct it." in answer(post, "bob", "janggi tournament create spring-26 bob PW "
                                                   "--system=knockout")
    assert "There is no Xiangqi tournament nope" in answer(post, "bob", "xiangqi tournament show nope")
    assert "\"enter\" is not one of: create, join, leave, start, show" in answer(
        post, "bob", "xiangqi tournament enter spring-26 bob PW")


def test_only_the_listed_directors_may_create(tmp_path):
    post = PostOffice(tmp_path, tournament_directors=["carol"])
    for user in ("alice", "carol", "root"):
        post.send(f"signup {user} {PASSWORDS[user]}", sender=f"{user}@example.org")
    assert "only these players may direct tournaments: carol." in answer(
        post, "alice", "xiangqi tournament create cup alice PW --system=knockout")
    assert "You direct it." in answer(post, "carol", "xiangqi tournament create cup carol PW "
                                                     "--system=knockout")
    assert "You direct it." in answer(post, "root", "xiangqi tournament create cup2 root PW "
                                                    "--system=knockout")


def test_entries_until_the_start_and_the_director_alone_starts(post):
    entered(post, "--system=roundrobin --timeout=2", players=("alice",))
    assert "cup has 1 player; a tournament needs at least two" in answer(
        post, "alice", "xiangqi tournament start cup alice PW")
    assert "player number 2" in answer(post, "bob", "xiangqi tournament join cup bob PW")
    assert "You have already entered cup." in answer(post, "bob", "xiangqi tournament join cup bob PW")
    assert "player number 3" in answer(post, "carol", "xiangqi tournament join cup carol PW")
    assert "You have left cup." in answer(post, "bob", "xiangqi tournament leave cup bob PW")
    assert "Entered so far: alice, carol." in answer(post, "bob", "xiangqi tournament show cup")
    assert post.db.execute("SELECT user_id, number FROM tournament_entrants ORDER BY number").fetchall() \
        == [("alice", 1), ("carol", 2)]
    assert "Only the director of cup, alice, can start it." in answer(
        post, "carol", "xiangqi tournament start cup carol PW")
    mails = cmd(post, "alice", "xiangqi tournament start cup alice PW")
    assert "cup has started with 2 players and 1 round" in flat(mails[0])
    assert "cup has started; it takes no more entries." in answer(
        post, "bob", "xiangqi tournament join cup bob PW")
    # both consented by joining: the clocks run from the start, the game is rated
    [(rated, accepted, deadline)] = post.db.execute(
        "SELECT rated, accepted_at, deadline FROM games WHERE status = 'active'").fetchall()
    assert rated and accepted and deadline


def test_chosen_tiebreaks_head_the_table_and_a_swiss_is_cut_to_half_the_field(post):
    entered(post, "--system=swiss --rounds=5 --tiebreaks=bh-c1,SB,de")
    mails = cmd(post, "alice", "xiangqi tournament start cup alice PW")
    note = flat(mails[0])
    assert ("cup has started with 3 players and 2 rounds" in note and "You asked for 5 rounds; a "
            "Swiss of 3 players has at most 2 rounds, half the field rounded up, so that every round "
            "can be paired without a rematch, as FIDE's Swiss rules require." in note)
    assert post.db.execute("SELECT rounds, tiebreaks FROM tournaments").fetchall() == [
        (2, "BH-C1,SB,DE")]
    shown = text(cmd(post, "bob", "xiangqi tournament show cup")[0])
    assert "Rk User  Pts BH-C1 SB DE  R1" in shown, shown


def test_a_resignation_before_the_first_move_is_a_forfeit_loss(post):
    entered(post, "--system=roundrobin", players=("alice", "bob"))
    cmd(post, "alice", "xiangqi tournament start cup alice PW")
    [(_, white, black, _, board)] = pairings(post)
    mails = cmd(post, white, f"xiangqi resign {board} {white} PW")
    assert {m["Subject"] for m in mails} >= {f"Xiangqi Board {board} over: {black} won ({white} resigned)",
                                             f"Xiangqi tournament cup: won by {black}"}
    assert pairings(post)[0][3] == "-+"


def test_a_time_out_ends_the_round_and_the_timers_start_the_next(post):
    entered(post, "--system=roundrobin --timeout=1")
    cmd(post, "alice", "xiangqi tournament start cup alice PW")
    [(_, white, black, _, board), (_, idle, bye, _, _)] = pairings(post)
    assert bye is None
    cmd(post, white, f"xiangqi move {board} {white} PW h3e3")
    mails = post.tick(2)
    subjects = {m["To"]: m["Subject"] for m in mails if m["Subject"].startswith("Xiangqi tournament")}
    assert subjects == {f"{u}@example.org": "Xiangqi tournament cup: round 2 of 3"
                        for u in ("alice", "bob", "carol")}
    assert pairings(post)[0][3] == "1-0"
    assert [p[0] for p in pairings(post)] == [1, 1, 2, 2]


def test_an_admin_ruling_ends_the_round_too(post):
    entered(post, "--system=swiss --rounds=2", players=("alice", "bob"))
    cmd(post, "alice", "xiangqi tournament start cup alice PW")
    [(_, white, _, _, board)] = pairings(post)
    mails = cmd(post, "root", f"xiangqi forfeit {board} root PW {white} no show")
    winner = next(u for u in ("alice", "bob") if u != white)
    assert f"Xiangqi tournament cup: won by {winner}" in {m["Subject"] for m in mails}
    assert pairings(post)[0][3] == "-+"
    # a Swiss of two can play one round without a rematch: the ruling ends the tournament
    assert post.db.execute("SELECT status, rounds FROM tournaments").fetchone() == ("finished", 1)


def test_an_admin_cancelling_a_game_scores_nobody(post):
    entered(post, "--system=knockout", players=("alice", "bob"))
    cmd(post, "alice", "xiangqi tournament start cup alice PW")
    [(_, _, _, _, board)] = pairings(post)
    mails = cmd(post, "root", f"xiangqi cancel {board} root PW server trouble")
    assert pairings(post)[0][3] == "--"
    # a double forfeit sends the higher seed through (equal ratings: by user id)
    assert "Xiangqi tournament cup: won by alice" in {m["Subject"] for m in mails}


def test_a_player_who_withdraws_mid_event_forfeits_the_rest(post):
    entered(post, "--system=roundrobin --timeout=3")
    cmd(post, "alice", "xiangqi tournament start cup alice PW")
    [(_, white, black, _, board), _] = pairings(post)
    quitter = black
    assert "Only the director of cup, alice, can withdraw players from it." in answer(
        post, white if white != "alice" else "carol", f"xiangqi tournament withdraw cup "
        f"{white if white != 'alice' else 'carol'} PW {quitter}")
    mails = cmd(post, quitter, f"xiangqi tournament leave cup {quitter} PW")
    assert "You have withdrawn from cup" in flat(mails[0])
    assert f"Xiangqi Board {board} over: {white} won ({quitter} withdrew from the tournament cup)" in \
        {m["Subject"] for m in mails}
    # the round ended with that game; the others play on, every later game of the quitter is a
    # forfeit, not played
    while running := [p for p in pairings(post) if p[4] and p[3] is None]:
        _, w, b, _, number = running[0]
        cmd(post, b, f"xiangqi resign {number} {b} PW")
    assert post.db.execute("SELECT status FROM tournaments").fetchone() == ("finished",)
    later = [p for p in pairings(post) if quitter in p[1:3] and p[2] is not None and p[0] > 1]
    assert len(later) == 1
    for _, w, _, result, number in later:
        assert number is None and result == ("-+" if w == quitter else "+-")
    assert "is not playing in cup" in answer(post, "alice", f"xiangqi tournament withdraw cup alice PW "
                                                            f"{quitter}")


def test_a_cancelled_tournament_pairs_no_more(post):
    entered(post, "--system=swiss --rounds=2", players=("alice", "bob", "carol"))
    cmd(post, "alice", "xiangqi tournament start cup alice PW")
    mails = cmd(post, "alice", "xiangqi tournament cancel cup alice PW")
    assert {m["To"] for m in mails if m["Subject"] == "Xiangqi tournament cup cancelled"} == \
        {f"{u}@example.org" for u in ("alice", "bob", "carol")}
    [(_, white, black, _, board)] = [p for p in pairings(post) if p[2]]
    cmd(post, black, f"xiangqi resign {board} {black} PW")
    assert len(pairings(post)) == 2
    listed = text(cmd(post, "bob", "xiangqi tournaments")[0])
    assert "cup                      Swiss                 3 players  cancelled" in listed


@pytest.mark.parametrize("size, grid", [(12, True), (13, False)])
def test_the_crosstable_fits_78_columns_up_to_twelve_then_the_standings(tmp_path, size, grid):
    post = PostOffice(tmp_path)
    users = [f"p{n:02d}_longer_names" for n in range(1, size + 1)]    # 16 characters
    for user in users:
        post.send(f"signup {user} pw-{user}", sender=f"{user}@example.org")
    post.send(f"xiangqi tournament create big {users[0]} pw-{users[0]} --system=roundrobin",
              sender=f"{users[0]}@example.org")
    for user in users:
        post.send(f"xiangqi tournament join big {user} pw-{user}", sender=f"{user}@example.org")
    mails = post.send(f"xiangqi tournament start big {users[0]} pw-{users[0]}",
                      sender=f"{users[0]}@example.org")
    round_mail = next(m for m in mails if m["Subject"] == f"Xiangqi tournament big: round 1 of "
                                                          f"{size - 1 + size % 2}")
    body = text(round_mail)
    assert max(map(len, body.splitlines())) <= 78, body
    header = body.split("Standings:\n")[1].splitlines()[0].split()
    assert header == ["Rk", "User", "Pts", "SB", *(map(str, range(1, size + 1)) if grid else ["Gms"])]
    assert "<table" in round_mail.get_body(("html",)).get_content()


def test_an_entrant_leaves_before_signing_off(post):
    entered(post, "--system=knockout", players=("bob",))
    assert "bob is entered in the tournament Xiangqi cup. Leave it first" in answer(
        post, "bob", "signoff bob PW")
    cmd(post, "bob", "xiangqi tournament leave cup bob PW")
    assert "bob has signed off." in answer(post, "bob", "signoff bob PW")


def test_a_knockout_of_three_gives_the_top_seed_a_bye(post):
    entered(post, "--system=knockout")
    cmd(post, "alice", "xiangqi tournament start cup alice PW")
    assert [p[:4] for p in pairings(post)] == [(1, "bob", "carol", None), (1, "alice", None, None)]
    [(_, _, _, _, board), _] = pairings(post)
    mails = cmd(post, "carol", f"xiangqi resign {board} carol PW")
    assert {m["To"] for m in mails if m["Subject"] == "Xiangqi tournament cup: round 2 of 2"} == \
        {f"{u}@example.org" for u in ("alice", "bob", "carol")}
    [final] = pairings(post)[2:]
    assert final[:4] == (2, "alice", "bob", None)
    mails = cmd(post, "bob", f"xiangqi resign {final[4]} bob PW")
    [won] = [m for m in mails if m["To"] == "carol@example.org" and "won by" in m["Subject"]]
    assert won["Subject"] == "Xiangqi tournament cup: won by alice"
    assert "The winner is alice, who won the final." in flat(won)


def test_a_tournament_with_a_clock_starts_its_games_with_the_bank_running(post):
    entered(post, "--system=roundrobin --clock=3+1", players=("alice", "bob"))
    mails = cmd(post, "alice", "xiangqi tournament start cup alice PW")
    [(_, white, black, _, board)] = pairings(post)
    [first] = [m for m in mails if m["To"] == f"{white}@example.org" and "Board" in m["Subject"]]
    assert "Clock: 3 days + 1 day a move; weekends count." in flat(first)
    cmd(post, white, f"xiangqi move {board} {white} PW h3e3")
    mails = post.tick(5)                    # black's three days and the increment ran out long ago
    assert any(f"Board {board} over: {white} won" in m["Subject"] for m in mails)
    assert pairings(post)[0][3] == "1-0"


def test_a_rounds_last_game_is_mailed_over_before_the_next_round_starts(post):
    entered(post, "--system=roundrobin")
    cmd(post, "alice", "xiangqi tournament start cup alice PW")
    [(_, white, black, _, board)] = [row for row in pairings(post) if row[0] == 1 and row[4]]
    cmd(post, white, f"xiangqi move {board} {white} PW h3e3")
    mails = cmd(post, black, f"xiangqi resign {board} {black} PW")
    subjects = [str(mail["Subject"]) for mail in mails]
    over = [i for i, s in enumerate(subjects) if s.startswith(f"Xiangqi Board {board} over:")]
    started = [i for i, s in enumerate(subjects) if s.startswith("New Xiangqi Board")]
    assert over and started and max(over) < min(started), subjects
