"""Tournaments by mail: the commands, and the rounds that go on as games end."""
