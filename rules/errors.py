"""Exceptions whose messages are meant for players: they say what was wrong and what would be right."""


class RulesError(ValueError):
    """Base class of every error the rules core reports to a player."""


class UnknownVariant(RulesError):
    pass


class FenError(RulesError):
    pass


class NotationError(RulesError):
    """The move text is in no notation the game understands."""


class IllegalMove(RulesError):
    pass
