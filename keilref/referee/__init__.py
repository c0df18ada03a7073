"""The referee: a record replayed under its rules becomes a verdict.

The third stage. :mod:`~keilref.referee.settings` reads the setting tags,
:mod:`~keilref.referee.replay` plays the turns through the engine, and
:mod:`~keilref.referee.verdict` decides the one status of each game and
whether it fails. :mod:`~keilref.referee.batches` runs whole archives,
across processes; statistics and filtering read verdicts.
"""
