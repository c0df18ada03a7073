"""The harnesses of ``benchmarks/fuzz.py``, one a surface of keilref."""
