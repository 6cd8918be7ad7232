"""What the game mails say: the board mail and its parts, notices, rulings' words."""
