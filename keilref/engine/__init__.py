"""The rules as mechanics: geometry, the kernel, and one game class per rule family.

The second stage. A :class:`~keilref.engine.game.Game` plays turns and
refuses illegal ones; rule sets are data in a registry
(:mod:`keilref.engine.rules`), so a new family is one module that registers
its rule sets. The engine reads records only to build games from them.
"""
