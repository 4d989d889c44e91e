"""An import-linter contract type: only repositories (and the database plumbing) build
queries; everything else reads and writes through them.

import-linter's graph knows which module imports which, not which names, and it skips
folders without an `__init__.py`. This contract reads the source of every module under
the root package (its AST) for what builds or sends a query:

- an import of one of SQLAlchemy's query builders (`select`, `insert`, `update`,
  `delete`, `text`, `func`, … from any `sqlalchemy` module), or of `sqlalchemy` itself
  (whose attributes are the same builders);
- an import of asyncpg, or of SQLAlchemy's asyncpg dialect, or a reach for the pool's raw
  connection (`PoolProxiedConnection`, `.driver_connection`): SQL sent past SQLAlchemy;
- a row read by its key outside a repository: `session.get(...)` or `kit.db.get_kept(...)`;
- a statement refined or sent outside a repository: a call of one of the statements'
  clause methods (`.where(…)`, `.order_by(…)`, … on whatever a repository handed out), or
  `session.execute(…)` (`scalar`, `scalars`, `stream`) on a session or connection.

Configured in pyproject.toml:

    [[tool.importlinter.contracts]]
    type = "queries"
    allowed_modules = ["corridor.**.repository", ...]     # build queries
    temporary_exceptions = ["corridor.quotes.locks", ...]  # named, to be emptied

A temporary exception that builds no query any more is reported (a warning), so the list
only shrinks.
"""

from __future__ import annotations

import ast
import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

from grimp import ImportGraph
from importlinter import Contract, ContractCheck, fields, output

# What builds a statement: the statements themselves and the expression helpers that
# exist only to go into one. (Types such as `Select`, used in annotations, are not here.)
QUERY_BUILDERS = frozenset(
    {
        "select",
        "insert",
        "update",
        "delete",
        "text",
        "union",
        "union_all",
        "intersect",
        "except_",
        "exists",
        "lambda_stmt",
        "literal_column",
        "values",
        "func",
        "and_",
        "or_",
        "not_",
        "case",
        "tuple_",
        "cast",
        "literal",
        "bindparam",
        "column",
        "table",
        "true",
        "false",
        "null",
        "nulls_first",
        "nulls_last",
    }
)


# What refines a statement a repository handed out: methods of SQLAlchemy's statements
# whose names nothing else in the package calls (`join`, `limit`, `filter` are left out:
# strings, lists and builtins have them too).
STATEMENT_CLAUSES = frozenset(
    {
        "where",
        "order_by",
        "group_by",
        "having",
        "outerjoin",
        "join_from",
        "select_from",
        "with_only_columns",
        "with_for_update",
        "returning",
        "filter_by",
        "scalar_subquery",
        "correlate",
        "on_conflict_do_nothing",
        "on_conflict_do_update",
    }
)

# What sends a statement, called on a session or a connection.
STATEMENT_SENDS = frozenset({"execute", "scalar", "scalars", "stream", "stream_scalars"})
_SENDERS = frozenset({"session", "connection"})


def _is_sender(node: ast.expr) -> bool:
    """`session`, `connection`, or an attribute of that name (`context.session`)."""
    if isinstance(node, ast.Name):
        return node.id in _SENDERS
    return isinstance(node, ast.Attribute) and node.attr in _SENDERS


@dataclass(frozen=True, slots=True)
class Found:
    module: str
    line: int
    what: str


def _builder_imports(node: ast.ImportFrom, module: str) -> list[Found]:
    source = node.module or ""
    root = source.split(".")[0]
    if root == "asyncpg" or source.startswith("sqlalchemy.dialects.postgresql.asyncpg"):
        return [Found(module, node.lineno, f"from {source} import … (asyncpg)")]
    if any(alias.name == "PoolProxiedConnection" for alias in node.names):
        return [Found(module, node.lineno, "PoolProxiedConnection (the raw driver connection)")]
    if root != "sqlalchemy":
        return []
    names = sorted(alias.name for alias in node.names if alias.name in QUERY_BUILDERS)
    if not names:
        return []
    return [Found(module, node.lineno, f"from {source} import {', '.join(names)}")]


def queries_in(source: str, module: str) -> list[Found]:
    """Where `source` builds or sends a query (see the module's docstring)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "asyncpg" or alias.name == "sqlalchemy":
                    found.append(Found(module, node.lineno, f"import {alias.name}"))
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            found += _builder_imports(node, module)
        elif isinstance(node, ast.Attribute) and node.attr == "driver_connection":
            found.append(Found(module, node.lineno, ".driver_connection (asyncpg)"))
        elif isinstance(node, ast.Call):
            function = node.func
            if (
                isinstance(function, ast.Attribute)
                and function.attr == "get"
                and isinstance(function.value, ast.Name)
                and function.value.id == "session"
            ):
                found.append(Found(module, node.lineno, "session.get(…) (a row by its key)"))
            name = getattr(function, "attr", None) or getattr(function, "id", None)
            if name == "get_kept":
                found.append(Found(module, node.lineno, "get_kept(…) (a row by its key)"))
            if isinstance(function, ast.Attribute) and function.attr in STATEMENT_CLAUSES:
                found.append(Found(module, node.lineno, f".{function.attr}(…) (a clause)"))
            if (
                isinstance(function, ast.Attribute)
                and function.attr in STATEMENT_SENDS
                and _is_sender(function.value)
            ):
                what = f"{ast.unparse(function.value)}.{function.attr}(…) (a statement sent)"
                found.append(Found(module, node.lineno, what))
    return sorted(found, key=lambda one: one.line)


def matches(module: str, expression: str) -> bool:
    """import-linter's module expressions: `*` one name, `**` any number; a match's
    submodules match too."""
    pattern = ""
    for index, part in enumerate(expression.split(".")):
        separator = r"\." if index else ""
        if part == "**":
            pattern += rf"(?:{separator}[^.]+)*"
        elif part == "*":
            pattern += rf"{separator}[^.]+"
        else:
            pattern += separator + re.escape(part)
    return re.fullmatch(pattern + r"(?:\..+)?", module) is not None


def modules_of(package: str) -> dict[str, Path]:
    """Every module under `package`, folders without `__init__.py` included."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"{package} is not a package")
    found: dict[str, Path] = {}
    for location in spec.submodule_search_locations:
        root = Path(location)
        for path in sorted(root.rglob("*.py")):
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            found[".".join((package, *parts))] = path
    return found


class QueriesContract(Contract):
    """Only `allowed_modules` (and, for now, `temporary_exceptions`) build queries."""

    allowed_modules = fields.ListField(subfield=fields.StringField())
    temporary_exceptions = fields.ListField(subfield=fields.StringField(), required=False)
    broken_contract_guidance = fields.TextField(required=False)

    def check(self, graph: ImportGraph, verbose: bool) -> ContractCheck:
        roots = self.session_options.get("root_packages") or [self.session_options["root_package"]]
        allowed = list(self.allowed_modules)  # type: ignore[attr-defined]
        excepted = list(self.temporary_exceptions or [])  # type: ignore[attr-defined]
        broken: list[Found] = []
        excepted_building: set[str] = set()
        for root in roots:
            for module, path in modules_of(root).items():
                if any(matches(module, expression) for expression in allowed):
                    continue
                found = queries_in(path.read_text(), module)
                if not found:
                    continue
                exception = next((e for e in excepted if matches(module, e)), None)
                if exception is not None:
                    excepted_building.add(exception)
                    continue
                broken += found
        warnings = [
            f"{exception} is a temporary exception of '{self.name}' but builds no query "
            "any more: take it off the list"
            for exception in excepted
            if exception not in excepted_building
        ]
        return ContractCheck(
            kept=not broken,
            metadata={"broken": [(one.module, one.line, one.what) for one in broken]},
            warnings=warnings,
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        for module, line, what in check.metadata["broken"]:
            output.print_error(f"{module}:{line}: {what}", bold=False)
        output.new_line()
        guidance = self.broken_contract_guidance  # type: ignore[attr-defined]
        if guidance:
            output.print(guidance)
