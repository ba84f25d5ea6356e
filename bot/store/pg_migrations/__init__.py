"""Numbered PostgreSQL migrations (NNNN_name.sql), applied in order at start-up by
``bot.store.postgres``; their numbers are PostgreSQL's own, apart from the SQLite ones in
``bot/store/migrations``. A package so the .sql files ship with the wheel. Never edit a released
file: add the next number.
"""
