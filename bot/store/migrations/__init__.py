"""Numbered SQL migrations (NNNN_name.sql), applied in order at start-up by ``bot.store.sqlite``.

A package so the .sql files ship with the wheel (package-data). Never edit a released file:
add the next number.
"""
