"""The shape the code keeps (issue 10): the import layers, no ruleset named outside its package,
orders that declare what they act with, and a registry that refuses a ruleset that does not."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Literal, get_args

import pytest

from bot.core.orders import ActingUnit, OrderBase, PhaseOrder, refers, undeclared_fields
from bot.core.ruleset import Shots
from bot.core.rulesets import RulesetRefused, register, rulesets
from bot.core.setup import SetupOrder
from tests.plugins import toy_ruleset

ROOT = Path(__file__).resolve().parents[1]


def imports(path: Path) -> set[str]:
    """Every module a file imports, at the top or inside functions (relative ones made absolute)."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")[: len(package.split(".")) - (node.level - 1)] if node.level else []
            module = ".".join([*base, node.module] if node.module else base)
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def sources(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def offending(paths: list[Path], forbidden: tuple[str, ...]) -> list[str]:
    return [f"{p.relative_to(ROOT)} imports {m}" for p in paths for m in sorted(imports(p))
            if any(m == f or m.startswith(f + ".") for f in forbidden)]


def module_name(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def import_graph(paths: list[Path]) -> dict[str, set[str]]:
    """Module -> the project's modules it imports, at the top or inside a function (a local import
    hides a circle from Python, not from this graph); imports read by type checkers only
    (``if TYPE_CHECKING:``) are left out. ``from package import name`` counts as importing the
    module ``package.name`` when there is one, else the package."""
    names = {module_name(p): p for p in paths}
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        tree = ast.parse(path.read_text())
        typing_only = {id(n) for node in ast.walk(tree) if isinstance(node, ast.If)
                       and "TYPE_CHECKING" in ast.unparse(node.test) for n in ast.walk(node)}
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        found: set[str] = set()
        for node in ast.walk(tree):
            if id(node) in typing_only:
                continue
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - (node.level - 1)]) if node.level else ""
                module = ".".join(x for x in (base, node.module or "") if x)
                targets = [f"{module}.{a.name}" if f"{module}.{a.name}" in names else module for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in names:  # a name inside a module: the module
                    target = target.rpartition(".")[0]
                if target and target != name:
                    found.add(target)
        graph[name] = found
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_module_imports_itself_back_through_others():
    """No import circle anywhere in the bot or the cogs, function-local imports included: each
    layer and each ruleset imports downwards only, so any module can be read, tested and imported
    first on its own."""
    graph = import_graph(sources("bot", "cogs"))
    assert circles(graph) == []


def test_the_circle_check_finds_a_circle_made_by_a_local_import():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


# --- layers ------------------------------------------------------------------------------------


def test_the_rules_core_imports_nothing_of_the_bot_outside_it():
    others = tuple(f"bot.{p.name}" if p.is_dir() else f"bot.{p.stem}" for p in (ROOT / "bot").iterdir()
                   if p.name not in ("core", "__init__.py", "__pycache__"))
    assert offending(sources("bot/core"), (*others, "cogs", "discord")) == []


def test_the_record_reads_only_the_core():
    assert offending(sources("bot/record"), ("bot.store", "bot.service", "bot.render", "cogs", "discord")) == []


def test_cogs_import_neither_the_app_shell_nor_the_store():
    assert offending(sources("cogs"), ("bot.app", "bot.store", "bot.sandbox", "bot.cli", "bot.pacing",
                                       "bot.emulator", "bot.plugins")) == []


def test_nothing_imports_the_cogs():
    # the app shell loads them by name (load_extension), found by walking the package
    outside = [p for p in sources("bot", "bench", "tests") if p.name != "test_architecture.py"]
    assert offending(outside, ("cogs",)) == []


def test_the_service_and_the_store_know_nothing_of_discord():
    assert offending(sources("bot/store", "bot/service"), ("discord", "cogs", "bot.render")) == []


# --- no ruleset named outside its package -----------------------------------------------------------

AGNOSTIC = [*sources("cogs"), ROOT / "bot" / "render.py", *sources("bot/service"), ROOT / "bot" / "limits.py"]


@pytest.mark.parametrize("path", AGNOSTIC, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_ruleset_is_named_in_the_discord_layer(path):
    words = {w for r in rulesets() for w in (r.name, r.title, r.short_name, *r.variants.values())}
    words |= {o.title for r in rulesets() for o in r.side_options}
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")\b")
    text = path.read_text()
    assert not [m.group() for m in pattern.finditer(text)], f"{path.name} names a ruleset"


# Outside the rulesets' packages (the registry and the unit base excepted), what is not the Discord layer:
# its string literals (docstrings and comments may cite a ruleset's rule) name no ruleset, and no field
# of one ruleset's units or orders: the code reads the rulesets' declarations instead
# (``UnitBase.holder_field``/``company_field``/``condition``, ``Ruleset.shots``/``map_markers``...).
RULESETS = ROOT / "bot" / "core" / "rulesets"
# every module of bot/ and cogs/ outside the rulesets' packages: the shared core, bot/pictures, bot/work.py,
# the sandbox, the record, the store, the app and the Discord layer (which AGNOSTIC also reads whole)
SHARED_CODE = sorted({*sources("bot", "cogs")} - {p for p in sources("bot/core/rulesets") if p.parent != RULESETS})
REGISTRY_LINE = "BUILT_IN"  # the registry's one line naming the built-in packages


def ruleset_words() -> set[str]:
    words = {w for r in rulesets() for w in (r.name, r.title, r.short_name, *r.variants.values())}
    return words | {o.title for r in rulesets() for o in r.side_options}


def literals(path: Path) -> list[tuple[int, str]]:
    """The string literals of a module but its docstrings and the registry's list of built-ins."""
    tree = ast.parse(path.read_text())
    skipped = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            skipped.add(id(body[0].value))
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == REGISTRY_LINE for t in node.targets):
            skipped |= {id(n) for n in ast.walk(node.value)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in skipped]


@pytest.mark.parametrize("path", SHARED_CODE, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_ruleset_is_named_in_the_shared_code(path):
    pattern = re.compile(r"\b(" + "|".join(re.escape(w) for w in sorted(ruleset_words(), key=len, reverse=True)) + r")\b")
    found = [(line, m.group()) for line, text in literals(path) for m in pattern.finditer(text)]
    assert found == [], f"{path.relative_to(ROOT)} names a ruleset in a string"


def shared_words() -> set[str]:
    """What the shared code may spell as it means it: the fields of the shared models and generic
    orders, the words of the declarations (what an id names, a trail line's kind), the odds' end
    states, the common words each ruleset words its own way, and a few words of the bot's own."""
    from bot.core.game import Game, Location
    from bot.core.odds.report import END_STATES
    from bot.core.orders import RefersTo
    from bot.core.outcome import Outcome, UnitEffect
    from bot.core.rulesets.base import UnitBase
    from bot.core.sides import Side
    from bot.core.step import Step, StepKind
    from bot.record.chain import LogEntry

    words = {"system", "action"} | set(get_args(RefersTo)) | set(get_args(StepKind)) | set(END_STATES)
    for model in (UnitBase, Side, Location, Game, Step, Outcome, UnitEffect, LogEntry, *get_args(SetupOrder), PhaseOrder):
        words |= set(model.model_fields)
    words |= {w for r in rulesets() for w in r.words}
    # the bot's own words: a count, a log entry's order, a reason given, the range between Locations,
    # a hindrance on a line of sight, results waiting for their phase's end
    return words | {"n", "order", "reason", "range", "hindrance", "pending"}


def own_fields() -> dict[str, list[str]]:
    """Each field of one ruleset's units and orders that the shared code has no word of its own for."""
    shared = shared_words()
    found: dict[str, list[str]] = {}
    for ruleset in (*rulesets(), toy_ruleset.RULESET):
        names = set(ruleset.unit_model().model_fields)
        for model in get_args(ruleset.order_type):
            if model is not PhaseOrder:
                names |= set(model.model_fields)
        for name in names - shared:
            found.setdefault(name, []).append(ruleset.name)
    return found


FIELD_CHECKED = SHARED_CODE
SAME_WORD = {  # a word spelled as a field of one ruleset is, but meaning something of its own
    "bot/cli.py": {"target"},  # the destination database of `store copy` (argparse)
    "bot/emulator/payloads.py": {"owner"},  # a Discord application's owner, in the fake Discord's payloads
}


@pytest.mark.parametrize("path", FIELD_CHECKED, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_field_of_one_ruleset_is_named_outside_it(path):
    fields = own_fields()
    allowed = SAME_WORD.get(path.relative_to(ROOT).as_posix(), set())
    found = [(line, text, fields[text]) for line, text in literals(path) if text in fields and text not in allowed]
    assert found == [], f"{path.relative_to(ROOT)} names fields of one ruleset (line, field, rulesets)"
    read = attributes_read(path)
    assert read == [], f"{path.relative_to(ROOT)} reads a unit or order field by its name (line, field)"


def attributes_read(path: Path) -> list[tuple[int, str]]:
    """getattr/setattr/hasattr with a literal naming a field some ruleset's units or orders declare and
    the shared models do not, a word of the shared vocabulary ("company") included."""
    from bot.core.rulesets.base import UnitBase

    generic = set(UnitBase.model_fields) | {f for m in (*get_args(SetupOrder), PhaseOrder) for f in m.model_fields}
    declared = {f for r in (*rulesets(), toy_ruleset.RULESET)
                for m in (r.unit_model(), *get_args(r.order_type)) for f in m.model_fields} - generic
    return [(node.lineno, node.args[1].value) for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") in ("getattr", "setattr", "hasattr")
            and len(node.args) > 1 and isinstance(node.args[1], ast.Constant) and node.args[1].value in declared]


def test_the_field_checks_find_a_field_of_one_ruleset(tmp_path):
    probe = tmp_path / "probe.py"
    probe.write_text('"""Reads owner: a docstring may say it."""\n\n\ndef holder(unit):\n    return getattr(unit, "owner")\n\n\n'
                     'def company(unit):\n    return getattr(unit, "company", "")\n')
    assert [text for _, text in literals(probe) if text in own_fields()] == ["owner"]
    assert attributes_read(probe) == [(5, "owner"), (9, "company")]  # a shared word read as a field is caught too


# --- orders declare what they act with ----------------------------------------------------------------


def every_order() -> list[tuple[str, type[OrderBase]]]:
    found = [("setup", m) for m in get_args(SetupOrder)]
    for ruleset in (*rulesets(), toy_ruleset.RULESET):
        found += [(ruleset.name, m) for m in get_args(ruleset.order_type) if m is not PhaseOrder]
    return found


@pytest.mark.parametrize(("ruleset", "model"), every_order(), ids=lambda v: getattr(v, "__name__", v))
def test_every_field_that_may_hold_ids_says_what_it_names(ruleset, model):
    assert undeclared_fields(model) == []


def test_a_field_naming_units_without_a_declaration_is_caught():
    class Charge(OrderBase):
        action: Literal["charge"] = "charge"
        attackers: list[str]  # names units, but says nothing of them
        leader: ActingUnit

    assert undeclared_fields(Charge) == ["attackers"]
    assert refers(Charge, "leader").acting


def variant(name: str, **attributes):  # type: ignore[no-untyped-def]
    """The toy ruleset under another name (its units' ``system`` too), with ``attributes`` changed."""
    pawn = type(f"Pawn_{name}", (toy_ruleset.Pawn,), {"__annotations__": {"system": Literal[name]}, "system": name})
    return type(f"Toy_{name}", (toy_ruleset.ToyRuleset,), {"name": name, "unit_model": lambda self: pawn,
                                                            **attributes})()


def test_the_registry_refuses_a_ruleset_whose_orders_hold_an_undeclared_field():
    class Charge(OrderBase):
        action: Literal["charge"] = "charge"
        attackers: list[str]

    with pytest.raises(RulesetRefused, match=r"Charge.attackers holds ids but does not declare what they name"):
        register(variant("careless", order_type=Charge | PhaseOrder, commands=()))
    assert "careless" not in [r.name for r in rulesets()]


@pytest.mark.parametrize("name, change, says", [
    ("noshort", {"short_name": ""}, "does not declare its short_name"),
    ("Bad Name", {}, "a ruleset's name is 1-16 lowercase letters"),
    ("asl", {}, "the ruleset name 'asl' is taken"),
    ("noholder", {"unit_model": lambda self: type("Held", (toy_ruleset.Pawn,), {
        "__annotations__": {"system": Literal["noholder"]}, "system": "noholder", "holder_field": "carrier"})},
     "its unit model's holder_field 'carrier' is not one of its fields"),
    ("noshot", {"shots": Shots(("toss",), firers="throwers")}, "its shots name 'throwers', not a field of its 'toss'"),
])
def test_the_registry_refuses_an_incomplete_or_clashing_ruleset(name, change, says):
    with pytest.raises(RulesetRefused, match=says):
        register(variant(name, **change))


def test_a_ruleset_whose_units_carry_another_system_is_refused():
    stray = type("Stray", (toy_ruleset.ToyRuleset,), {"name": "stray"})()  # its units still say "toy"
    with pytest.raises(RulesetRefused, match=r"its unit model's 'system' must be Literal\['stray'\]"):
        register(stray)


def test_a_command_option_must_fill_a_field_of_its_order():
    from bot.core.commands import Command, Option

    commands = (Command("toss", "toss", toy_ruleset.Toss, (Option("pawn", "id", "no such field"),)),)
    with pytest.raises(RulesetRefused, match="option 'pawn' fills no field of Toss"):
        register(variant("badcmd", commands=commands))


# --- what Discord shows -------------------------------------------------------------------------------


def test_every_description_the_built_in_rulesets_give_fits_discord_without_being_cut():
    from cogs._slash import DESCRIPTION_MAX
    from cogs.orders import _description, _params, merged_commands

    registered = rulesets()
    for merged in merged_commands(registered):
        texts = [_description(merged, registered)] + [p.description for p in _params(merged)]
        long = [t for t in texts if len(t) > DESCRIPTION_MAX]
        assert not long, f"/{merged.name}: {long}"


def test_every_module_imports_first_in_a_fresh_interpreter():
    """Whichever core module a program imports first (``python -m bot rules`` imports the core's
    setup module before anything else), the import cycles between the game model and the rulesets
    must resolve. Each module of the core and each ruleset package is imported first in turn, in
    one subprocess, the project's modules forgotten between imports, so a cycle that the suite's
    own import order hides fails here. (The layers above import the core through these.)"""
    import subprocess
    import sys

    modules = [".".join(p.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
               for p in sources("bot/core") if len(p.relative_to(ROOT / "bot/core").parts) <= 2
               and (p.parent == ROOT / "bot/core" or p.name in ("__init__.py", "ruleset.py"))]
    script = (
        "import importlib, sys\n"
        "failed = []\n"
        f"for name in {modules!r}:\n"
        "    for loaded in [m for m in sys.modules if m.split('.')[0] in ('bot', 'cogs')]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as exc:\n"
        "        failed.append(f'{name}: {type(exc).__name__}: {exc}')\n"
        "print('\\n'.join(failed))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "", done.stdout


# pydantic's slots on every model instance: written by pydantic alone (issue 29 item 3)
PYDANTIC_SLOTS = frozenset({"__dict__", "__pydantic_fields_set__", "__pydantic_extra__", "__pydantic_private__"})


def slot_writes(source: str) -> list[int]:
    """The lines of ``source`` that write a slot of pydantic's: an assignment to ``x.<slot>``, a
    ``setattr``/``__setattr__`` call naming one, or a slot's descriptor taken from a model class's
    ``__dict__`` (``BaseModel.__dict__["__pydantic_extra__"].__set__``, ``BaseModel.__dict__["__dict__"]``)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Attribute) and t.attr in PYDANTIC_SLOTS for t in targets):
                found.append(node.lineno)
        elif isinstance(node, ast.Call):
            name = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            if name in ("setattr", "__setattr__") and any(
                    isinstance(a, ast.Constant) and a.value in PYDANTIC_SLOTS for a in node.args):
                found.append(node.lineno)
        elif (isinstance(node, ast.Subscript) and isinstance(node.value, ast.Attribute)
              and node.value.attr == "__dict__" and isinstance(node.slice, ast.Constant)
              and (str(node.slice.value).startswith("__pydantic_")
                   or (node.slice.value == "__dict__" and getattr(node.value.value, "id", "") == "BaseModel"))):
            found.append(node.lineno)  # (a plain class's own __dict__ descriptor, as working.py's, is not pydantic's)
    return found


@pytest.mark.parametrize("path", sources("bot", "cogs"), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_slot_of_pydantic_is_written_outside_pydantic(path):
    """Models are made and copied through pydantic's own API (validation, ``model_copy``), never by
    writing the slots it keeps on each instance (bot/core/copying.py and working.py fill only the
    fields of a copy pydantic made)."""
    assert sorted(slot_writes(path.read_text())) == [], path


def test_the_slot_check_finds_each_way_of_writing_a_slot():
    source = ('set_extra = BaseModel.__dict__["__pydantic_extra__"].__set__\n'
              'object.__setattr__(model, "__pydantic_fields_set__", set())\n'
              'model.__pydantic_private__ = None\n'
              'set_dict = BaseModel.__dict__["__dict__"].__set__\n'
              'set_values = Plain.__dict__["__dict__"].__set__\n'  # a plain class's own: not pydantic's
              'setattr(model, "__dict__", {})\n'
              'model.__dict__["name"] = 1\n'  # a field of the model's own __dict__: not a slot
              'model.model_copy(update={"name": 1})\n')
    assert sorted(slot_writes(source)) == [1, 2, 3, 4, 6]
