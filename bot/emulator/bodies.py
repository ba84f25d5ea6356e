"""What Discord refuses in a message the bot sends (400, code 50035 "Invalid Form Body", or 50006
"Cannot send an empty message"), so that a reply the real Discord would refuse fails here too.

The limits are Discord's documented ones (Channel resource, "Embed Limits" and "Create Message";
Message Components, "Action Rows", "Buttons" and "String Selects"; Interactions, "Autocomplete"):
content at most 2,000 characters; at most 10 embeds, each with a title of 256, a description of
4,096, 25 fields (a name of 256 and a value of 1,024, neither empty), a footer of 2,048 and an
author's name of 256, and every embed of a message 6,000 characters together (title, description,
field names and values, footer, author); at most 5 action rows of at most 5 buttons (or one
select); a button's label at most 80, a custom_id 1-100 and unique in the message, a link button
with a url and no custom_id, any other with a custom_id and no url; a select with 1-25 options; at
most 25 autocomplete choices, each named with 1-100 characters, a string value at most 100. The
errors nest as Discord nests them: keyed by the JSON path of the bad field. A modal's limits:
``modal_errors``.
"""

from __future__ import annotations

from typing import Any

MAX_CONTENT, MAX_EMBEDS, MAX_EMBED_TOTAL = 2000, 10, 6000
MAX_TITLE, MAX_DESCRIPTION, MAX_FIELDS, MAX_FIELD_NAME, MAX_FIELD_VALUE = 256, 4096, 25, 256, 1024
MAX_FOOTER, MAX_AUTHOR = 2048, 256
MAX_ROWS, MAX_ROW_ITEMS, MAX_LABEL, MAX_CUSTOM_ID, MAX_SELECT_OPTIONS = 5, 5, 80, 100, 25
MAX_CHOICES, MAX_CHOICE_TEXT = 25, 100
ACTION_ROW, BUTTON, LINK_STYLE = 1, 2, 5
SELECTS = (3, 5, 6, 7, 8)  # string, user, role, mentionable and channel selects


def _refusal(code: str, message: str) -> dict[str, list[dict[str, str]]]:
    return {"_errors": [{"code": code, "message": message}]}


def _too_long(text: Any, limit: int) -> bool:
    return isinstance(text, str) and len(text) > limit


def _max_length(limit: int) -> dict[str, Any]:
    return _refusal("BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def message_errors(body: dict[str, Any]) -> dict[str, Any]:
    """Discord's ``errors`` object for a message body it would refuse (empty: accepted). Only the
    fields present are checked, so an edit that leaves a field out is judged on what it sends."""
    errors: dict[str, Any] = {}
    if _too_long(body.get("content"), MAX_CONTENT):
        errors["content"] = _max_length(MAX_CONTENT)
    embeds = body.get("embeds")
    if embeds:
        found = _embeds_errors(embeds)
        if found:
            errors["embeds"] = found
    components = body.get("components")
    if components:
        found = _components_errors(components)
        if found:
            errors["components"] = found
    return errors


def is_empty(body: dict[str, Any], files: list[Any]) -> bool:
    """A new message with nothing to show: Discord refuses it (50006)."""
    return not (body.get("content") or body.get("embeds") or body.get("components") or files
                or body.get("attachments") or body.get("sticker_ids") or body.get("poll"))


def _embeds_errors(embeds: list[dict[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    if len(embeds) > MAX_EMBEDS:
        return _max_length(MAX_EMBEDS)
    total = 0
    for index, embed in enumerate(embeds):
        mine: dict[str, Any] = {}
        for key, limit in (("title", MAX_TITLE), ("description", MAX_DESCRIPTION)):
            if _too_long(embed.get(key), limit):
                mine[key] = _max_length(limit)
            total += len(embed.get(key) or "")
        footer, author = embed.get("footer") or {}, embed.get("author") or {}
        if _too_long(footer.get("text"), MAX_FOOTER):
            mine["footer"] = {"text": _max_length(MAX_FOOTER)}
        if _too_long(author.get("name"), MAX_AUTHOR):
            mine["author"] = {"name": _max_length(MAX_AUTHOR)}
        total += len(footer.get("text") or "") + len(author.get("name") or "")
        fields = embed.get("fields") or []
        bad_fields: dict[str, Any] = _max_length(MAX_FIELDS) if len(fields) > MAX_FIELDS else {}
        for number, field in enumerate(fields):
            bad = {}
            for key, limit in (("name", MAX_FIELD_NAME), ("value", MAX_FIELD_VALUE)):
                text = field.get(key)
                if not isinstance(text, str) or not text:
                    bad[key] = _refusal("BASE_TYPE_REQUIRED", "This field is required")
                elif len(text) > limit:
                    bad[key] = _max_length(limit)
                total += len(text) if isinstance(text, str) else 0
            if bad:
                bad_fields[str(number)] = bad
        if bad_fields:
            mine["fields"] = bad_fields
        if mine:
            found[str(index)] = mine
    if total > MAX_EMBED_TOTAL:
        found.setdefault("_errors", []).append(
            {"code": "MAX_EMBED_SIZE_EXCEEDED", "message": f"Embed size exceeds maximum size of {MAX_EMBED_TOTAL}"})
    return found


def _components_errors(rows: list[dict[str, Any]]) -> dict[str, Any]:
    if len(rows) > MAX_ROWS:
        return _max_length(MAX_ROWS)
    found: dict[str, Any] = {}
    seen: set[str] = set()
    for index, row in enumerate(rows):
        if row.get("type") != ACTION_ROW:
            found[str(index)] = _refusal("COMPONENT_LAYOUT_INVALID", "Top-level components must be action rows")
            continue
        items = row.get("components") or []
        if not items or len(items) > MAX_ROW_ITEMS or (
                any(item.get("type") in SELECTS for item in items) and len(items) > 1):
            found[str(index)] = {"components": _refusal(
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "An action row holds 1-5 buttons or a single select")}
            continue
        bad_items: dict[str, Any] = {}
        for number, item in enumerate(items):
            bad = _item_errors(item, seen)
            if bad:
                bad_items[str(number)] = bad
        if bad_items:
            found[str(index)] = {"components": bad_items}
    return found


def _item_errors(item: dict[str, Any], seen: set[str]) -> dict[str, Any]:
    bad: dict[str, Any] = {}
    custom_id, link = item.get("custom_id"), item.get("type") == BUTTON and item.get("style") == LINK_STYLE
    if link:
        if not item.get("url") or custom_id is not None:
            bad["url"] = _refusal("BUTTON_COMPONENT_INVALID", "A link button has a url and no custom_id")
    elif not isinstance(custom_id, str) or not 1 <= len(custom_id) <= MAX_CUSTOM_ID:
        bad["custom_id"] = _refusal("BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {MAX_CUSTOM_ID} in length.")
    elif custom_id in seen:
        bad["custom_id"] = _refusal("COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
    else:
        seen.add(custom_id)
    if item.get("type") == BUTTON and _too_long(item.get("label"), MAX_LABEL):
        bad["label"] = _max_length(MAX_LABEL)
    if item.get("type") == 3 and not 1 <= len(item.get("options") or []) <= MAX_SELECT_OPTIONS:
        bad["options"] = _refusal("BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {MAX_SELECT_OPTIONS} in length.")
    return bad


# a modal (interaction response type 9; Interactions, "Modal", and Message Components, "Text Input"):
# a title of 1-45 characters, a custom_id of 1-100, 1-5 action rows of one text input each; a text
# input with a custom_id of 1-100, a style 1 (short) or 2 (paragraph), a label of 1-45, min_length
# 0-4,000, max_length 1-4,000 (not below min_length), a placeholder of at most 100 and a prefilled
# value of at most 4,000 (and at most its max_length)
MAX_MODAL_TITLE, MAX_MODAL_ROWS, MAX_INPUT_LABEL, MAX_INPUT_TEXT, MAX_PLACEHOLDER = 45, 5, 45, 4000, 100
TEXT_INPUT, INPUT_STYLES = 4, (1, 2)


def _bad_length(low: int, high: int) -> dict[str, Any]:
    return _refusal("BASE_TYPE_BAD_LENGTH", f"Must be between {low} and {high} in length.")


def modal_errors(data: dict[str, Any]) -> dict[str, Any]:
    """Discord's ``errors`` for a modal it would refuse (empty: accepted)."""
    errors: dict[str, Any] = {}
    title, custom_id = data.get("title"), data.get("custom_id")
    if not isinstance(title, str) or not 1 <= len(title) <= MAX_MODAL_TITLE:
        errors["title"] = _bad_length(1, MAX_MODAL_TITLE)
    if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= MAX_CUSTOM_ID:
        errors["custom_id"] = _bad_length(1, MAX_CUSTOM_ID)
    rows = data.get("components")
    if not isinstance(rows, list) or not 1 <= len(rows) <= MAX_MODAL_ROWS:
        errors["components"] = _bad_length(1, MAX_MODAL_ROWS)
        return errors
    found: dict[str, Any] = {}
    seen: set[str] = set()
    for index, row in enumerate(rows):
        items = row.get("components") if isinstance(row, dict) else None
        if not isinstance(row, dict) or row.get("type") != ACTION_ROW or not isinstance(items, list):
            found[str(index)] = _refusal("COMPONENT_LAYOUT_INVALID", "A modal's components are action rows")
        elif len(items) != 1 or not isinstance(items[0], dict) or items[0].get("type") != TEXT_INPUT:
            found[str(index)] = {"components": _refusal(
                "COMPONENT_LAYOUT_WIDTH_EXCEEDED", "An action row of a modal holds exactly one text input")}
        else:
            bad = _text_input_errors(items[0], seen)
            if bad:
                found[str(index)] = {"components": {"0": bad}}
    if found:
        errors["components"] = found
    return errors


def _text_input_errors(item: dict[str, Any], seen: set[str]) -> dict[str, Any]:
    bad: dict[str, Any] = {}
    custom_id = item.get("custom_id")
    if not isinstance(custom_id, str) or not 1 <= len(custom_id) <= MAX_CUSTOM_ID:
        bad["custom_id"] = _bad_length(1, MAX_CUSTOM_ID)
    elif custom_id in seen:
        bad["custom_id"] = _refusal("COMPONENT_CUSTOM_ID_DUPLICATED", "Component custom id cannot be duplicated")
    else:
        seen.add(custom_id)
    if item.get("style") not in INPUT_STYLES:
        bad["style"] = _refusal("BASE_TYPE_CHOICES", f"Value must be one of {INPUT_STYLES}.")
    label = item.get("label")
    if not isinstance(label, str) or not 1 <= len(label) <= MAX_INPUT_LABEL:
        bad["label"] = _bad_length(1, MAX_INPUT_LABEL)
    low, high = item.get("min_length"), item.get("max_length")
    if low is not None and (not isinstance(low, int) or not 0 <= low <= MAX_INPUT_TEXT):
        bad["min_length"] = _refusal("NUMBER_TYPE_MAX", f"Must be between 0 and {MAX_INPUT_TEXT}.")
    if high is not None and (not isinstance(high, int) or not 1 <= high <= MAX_INPUT_TEXT
                             or (isinstance(low, int) and high < low)):
        bad["max_length"] = _refusal("NUMBER_TYPE_MAX", f"Must be between 1 and {MAX_INPUT_TEXT}, "
                                                        "and not below min_length.")
    if _too_long(item.get("placeholder"), MAX_PLACEHOLDER):
        bad["placeholder"] = _max_length(MAX_PLACEHOLDER)
    value = item.get("value")
    limit = high if isinstance(high, int) and 1 <= high <= MAX_INPUT_TEXT else MAX_INPUT_TEXT
    if _too_long(value, limit):
        bad["value"] = _max_length(limit)
    return bad


def choices_errors(choices: list[dict[str, Any]]) -> dict[str, Any]:
    """Discord's ``errors`` for autocomplete choices it would refuse (empty: accepted)."""
    if len(choices) > MAX_CHOICES:
        return _max_length(MAX_CHOICES)
    found: dict[str, Any] = {}
    for index, choice in enumerate(choices):
        name, value = choice.get("name"), choice.get("value")
        if not isinstance(name, str) or not 1 <= len(name) <= MAX_CHOICE_TEXT or _too_long(value, MAX_CHOICE_TEXT):
            found[str(index)] = _refusal("BASE_TYPE_BAD_LENGTH", f"Must be between 1 and {MAX_CHOICE_TEXT} in length.")
    return found
