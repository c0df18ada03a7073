"""Every output: verdicts and positions as text, JSON, CI reports, pictures and pages.

The fourth stage. Formats read verdicts and never decide one; the wording a
user reads about a verdict is written once and shared by every format.
"""
