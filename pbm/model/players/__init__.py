"""The players: accounts, addresses and their confirmation, passwords and reset codes, reply tokens, the guessing guard and refusals, vacations, ratings, reliability."""
