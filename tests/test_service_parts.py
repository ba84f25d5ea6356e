"""The service in rooms (issue 29 item 4): each part of ``bot/service/`` small enough to read in one
sitting (no function over 60 lines), and one way to open a command: the channel's lock taken in
``Desk.command`` alone, the re-delivered interaction looked up there alone, and every entry that
writes the log coming through it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from bot.service import Referee
from bot.service.referee import _Of

ROOT = Path(__file__).resolve().parents[1]
SERVICE = sorted((ROOT / "bot" / "service").glob("*.py"))
LONGEST = 60  # lines of a function or method, its docstring included
LOCKS = {"lock", "_server_lock", "server_lock", "channel_lock", "ChannelLock"}  # what takes a lock
# where a lock is taken: the opening itself, the lock it makes, and the channel lock's entry into the store's
TAKES_LOCKS = {"Desk.command", "Desk.lock", "ChannelLock.__aenter__"}
REDELIVERY = {"load_for_command", "load_recorded"}  # the store's answers to "was this interaction logged?"
LOG_WRITES = {("desk", "save"), ("desk", "save_acted"), ("store", "append"), ("store", "end_game"),
              ("store", "reopen_game"), ("store", "apply_undo"), ("store", "create_game"), ("store", "create_undo")}


def functions(tree: ast.AST) -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """(qualified name, node) of every function and method, nested ones included."""
    found = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found.append((prefix + child.name, child))
                visit(child, f"{prefix}{child.name}.")
            elif isinstance(child, ast.ClassDef):
                visit(child, f"{prefix}{child.name}.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return found


def called(node: ast.AST) -> list[tuple[str | None, str]]:
    """(receiver's last name, name) of every call in ``node``: ``self.desk.save(...)`` is ("desk", "save")."""
    found = []
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute):
            value = call.func.value
            owner = (value.attr if isinstance(value, ast.Attribute)
                     else value.id if isinstance(value, ast.Name) else None)
            found.append((owner, call.func.attr))
        elif isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
            found.append((None, call.func.id))
    return found


def too_long(source: str) -> list[str]:
    return [f"{name}: {node.end_lineno - node.lineno + 1} lines" for name, node in functions(ast.parse(source))
            if node.end_lineno - node.lineno + 1 > LONGEST]


def locks_taken(source: str) -> list[str]:
    """The functions other than the opening's that take a lock (or hold one that does)."""
    return sorted(name for name, node in functions(ast.parse(source))
                  if name not in TAKES_LOCKS and any(attr in LOCKS for _, attr in called(node)))


def entries_around_the_opening(source: str) -> list[str]:
    """The public methods of the parts that write the log (themselves or through the class's private
    methods they call) without opening the command through ``self.desk.command``."""
    found = []
    for part in (n for n in ast.parse(source).body if isinstance(n, ast.ClassDef) and n.name != "Desk"):
        methods = {m.name: m for m in part.body if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))}
        for name, method in methods.items():
            if name.startswith("_"):
                continue
            reached, todo = {name}, [method]
            writes = False
            while todo:
                calls = called(todo.pop())
                writes |= any(call in LOG_WRITES for call in calls)
                for owner, attr in calls:
                    if owner == "self" and attr in methods and attr.startswith("_") and attr not in reached:
                        reached.add(attr)
                        todo.append(methods[attr])
            if writes and ("desk", "command") not in called(method):
                found.append(f"{part.name}.{name}")
    return found


@pytest.mark.parametrize("path", SERVICE, ids=lambda p: p.name)
def test_no_function_of_the_service_is_over_sixty_lines(path):
    assert too_long(path.read_text()) == []


@pytest.mark.parametrize("path", SERVICE, ids=lambda p: p.name)
def test_only_the_opening_takes_a_lock(path):
    assert locks_taken(path.read_text()) == []


@pytest.mark.parametrize("path", SERVICE, ids=lambda p: p.name)
def test_every_entry_that_writes_the_log_opens_through_the_desk(path):
    assert entries_around_the_opening(path.read_text()) == []


def test_only_the_desk_asks_the_store_whether_an_interaction_was_logged():
    asking = [f"{path.name}:{name}" for path in [*SERVICE, *sorted((ROOT / "cogs").glob("*.py"))]
              for name, node in functions(ast.parse(path.read_text()))
              if any(attr in REDELIVERY for _, attr in called(node))]
    assert asking == ["desk.py:Desk.recorded", "desk.py:Desk.recorded_or_active"]


def test_nothing_outside_the_service_takes_a_channels_lock():
    outside = [p for p in sorted((ROOT / "bot").rglob("*.py")) + sorted((ROOT / "cogs").glob("*.py"))
               if "service" not in p.relative_to(ROOT).parts and "store" not in p.relative_to(ROOT).parts]
    assert [str(p.relative_to(ROOT)) for p in outside if "channel_lock(" in p.read_text()
            or ".desk.lock(" in p.read_text()] == []


def test_the_checks_find_what_they_look_for():
    bad = '''
class Hidden:
    async def seal(self, channel_id, text):
        async with self.desk.lock(channel_id):
            return await self._write(text)

    async def _write(self, text):
        return await self.desk.save(text)

    async def peek(self, channel_id):
        return await self.desk.command(channel_id, self._write)
'''
    assert entries_around_the_opening(bad) == ["Hidden.seal"]
    assert locks_taken(bad) == ["Hidden.seal"]
    assert too_long("def f():\n" + "    x = 1\n" * LONGEST) == ["f: 61 lines"]
    assert too_long("def f():\n" + "    x = 1\n" * (LONGEST - 1)) == []


def test_every_name_the_referee_answers_to_is_its_parts(store):
    referee = Referee(store)
    names = [name for name, value in vars(Referee).items() if isinstance(value, _Of)]
    assert len(names) > 50
    for name in names:
        part = getattr(referee, vars(Referee)[name].part)
        assert getattr(referee, name) == getattr(part, name), name
    referee.clock = clock = lambda: None  # a setting changed on the Referee is the part's
    assert referee.desk.clock is clock
