"""The read-only web pages: a game's page for each of its readers (pbm.web.pages), served by
aiohttp (pbm.web.server) from `pbm serve` or `pbm web`."""
