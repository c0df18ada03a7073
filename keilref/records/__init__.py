"""Text to record: reading game records, and writing them back.

The first stage. Bytes from files, archives and streams become
:class:`~keilref.records.record.Record` values (tags, turns, comments, each
with its line and column) through the fast scanner or, for anything it
declines, the Lark grammar (``grammar/record.lark``). The writer and ``fmt``
turn records back into text. Nothing here knows the rules of any game.
"""
