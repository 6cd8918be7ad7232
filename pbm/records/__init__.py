"""Game records in the forms the players' own software reads, besides the PGN of pbm.model.play.pgn:
Chinese PGN as xqbase keeps it (`chinese`), the forums' DhtmlXQ blocks (`dhtmlxq`) and the Korean
programs' `.gib` (`gib`); `formats` says which a game has and how each is named and served.  Pure
functions of a stored board: the mail command and the web pages share them.
"""
