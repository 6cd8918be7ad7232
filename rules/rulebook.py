"""The rules the referee applies, numbered: one table that docs/repetition.md prints and every
ruling mail quotes (`rule 4`, `第4条`, `제4조`), so that the two cannot disagree
(tests/test_rulebook.py compares them).

Each rule has its text for players (marked with N_ for the catalogs; a server translates it) and
where it comes from: the Asian Xiangqi Federation's rule (its Chinese term), the WXF rule manual's
diagrams as the held-out test data names them, or the rules texts the project started from.
"""
from __future__ import annotations

from dataclasses import dataclass

from rules.said import N_


@dataclass(frozen=True)
class Rule:
    """One numbered rule of the rulebook that rulings cite."""
    number: int
    key: str            # what code refers to it by
    text: str           # for players, in English (N_-marked)
    source: str         # where it comes from (N_-marked)


RULES: tuple[Rule, ...] = tuple(Rule(i, key, text, source) for i, (key, text, source) in enumerate((
    ("repetition", N_(
        "When a position (the pieces and the side to move) stands for the third time since the "
        "last capture, the game ends and both sides' moves since its first occurrence are judged."),
     N_("Asian rules: repeated moves (循环); WXF rule manual, introduction")),
    ("own-moves", N_(
        "Each side is judged on its own moves: the opponent's checks or chases never excuse it."),
     N_("WXF rule manual, general principles")),
    ("perpetual-check", N_(
        "A side that gave check with every one of its moves checks perpetually."),
     N_("Asian rules: perpetual check (长将); manual diagrams, tests fsf-07 to fsf-15")),
    ("perpetual-chase", N_(
        "A side that newly chased one and the same enemy piece with every one of its moves chases "
        "perpetually, even with different pieces in turn."),
     N_("Asian rules: perpetual chase (长捉); manual diagrams, tests fsf-01 to fsf-03")),
    ("verdict", N_(
        "Perpetual check loses against anything less, perpetual chase against allowed moves; when "
        "both sides do the same, the game is drawn."),
     N_("Asian rules: both sides alike is a draw (双方不变作和); manual diagrams, tests fsf-06, "
        "fsf-16 to fsf-20")),
    ("allowed", N_(
        "Idle moves, threats of mate, offers, one check then one chase, and chasing different "
        "pieces in turn are allowed."),
     N_("Asian rules: idle move (闲着), one check one chase (一将一捉)")),
    ("chase", N_(
        "A move chases a piece when afterwards a piece of the mover could legally capture it and "
        "could not before: the attacker moved, an attack was discovered, or a protection was cut."),
     N_("Asian rules: chase (捉); WXF rule manual, definition of a chase")),
    ("free-attackers", N_(
        "The general and the soldiers may attack for ever; the general cannot be chased (that is "
        "check), nor a soldier that has not crossed the river."),
     N_("Asian rules: the general and soldiers may chase (将、兵捉子不算捉); test fsf-04")),
    ("protected", N_(
        "A piece that could be taken back after its capture is protected and not chased. A false "
        "protection does not count: a pinned protector, a cannon that loses its screen, a general "
        "taking back onto an attacked point."),
     N_("Asian rules: a protected piece (有根子) and a false root (假根); tests fsf-24 to fsf-32")),
    ("worth-more", N_(
        "A horse or cannon attacking a rook, and an elephant or advisor attacking a rook, cannon or "
        "horse, chases even a protected piece."),
     N_("Asian rules: chasing a protected piece of greater value (捉有根子)")),
    ("exchange", N_(
        "A piece attacking one of the same kind that could take it back offers an exchange; that "
        "is not a chase."),
     N_("Asian rules: an exchange offer (兑子); WXF rule manual, diagram D39; test fsf-22")),
    ("check-set-aside", N_(
        "If the chasing move gave check, that check is set aside when judging whether the piece "
        "is protected."),
     N_("WXF rule manual, discovered checks; tests fsf-25 and fsf-28")),
    ("through-attacker", N_(
        "Cutting a protection that ran through the attacker's own point defends the attacker; it "
        "does not chase."),
     N_("WXF rule manual, diagram D106; test fsf-21")),
    ("dead-position", N_(
        "When neither side can ever capture the other's general, the game is drawn at once."),
     N_("Xiangqi rules as pbmserv gives them, rule f")),
    ("no-capture", N_(
        "A game without a capture for the move limit (Xiangqi 120 plies, Janggi 100) is drawn."),
     N_("Asian rules: the move limit (自然限着)")),
    ("janggi-repetition", N_(
        "Janggi judges only perpetual check; any other repetition is a draw."),
     N_("Korea Janggi Association rules: repetition (동형반복)")),
    ("bikjang", N_(
        "When the generals face each other (bikjang), the side to move must break the facing or "
        "pass; a pass then ends the game as a draw, or on points where points decide."),
     N_("Korea Janggi Association rules: bikjang (빅장)")),
    ("points", N_(
        "Under points scoring, a game that would be drawn goes to the side with more material: "
        "chariot 13, cannon 7, horse 5, elephant 3, guard 3, soldier 2; Han has 1.5 more."),
     N_("Korea Janggi Association rules: counting (점수 계산)")),
), start=1))

BY_KEY = {rule.key: rule for rule in RULES}


def rule(key: str) -> Rule:
    """The numbered rule called `key`."""
    return BY_KEY[key]
