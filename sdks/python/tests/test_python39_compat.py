"""The SDK promises Python 3.9 and later, but no 3.9 interpreter can be installed here (Debian
ships 3.11 only, and PyPI is out of reach, so no `vermin`). This checks the promise statically,
as vermin would: the 3.9 grammar, annotations a 3.9 `typing.get_type_hints` can evaluate, and
no standard-library names or keyword arguments added after 3.9."""
from __future__ import annotations

import ast
import os
import unittest
from typing import Iterator, List, Tuple

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))

# Attribute or module-level names that appeared after 3.9 (module, name, version).
NEWER_NAMES = {
    ("typing", "TypeAlias"): "3.10", ("typing", "ParamSpec"): "3.10", ("typing", "Concatenate"): "3.10",
    ("typing", "TypeGuard"): "3.10", ("typing", "is_typeddict"): "3.10", ("typing", "Self"): "3.11",
    ("typing", "Never"): "3.11", ("typing", "LiteralString"): "3.11", ("typing", "Required"): "3.11",
    ("typing", "NotRequired"): "3.11", ("typing", "Unpack"): "3.11", ("typing", "assert_never"): "3.11",
    ("typing", "assert_type"): "3.11", ("typing", "reveal_type"): "3.11", ("typing", "dataclass_transform"): "3.11",
    ("typing", "override"): "3.12", ("typing", "TypeAliasType"): "3.12",
    ("datetime", "UTC"): "3.11", ("enum", "StrEnum"): "3.11", ("enum", "verify"): "3.11",
    ("itertools", "pairwise"): "3.10", ("itertools", "batched"): "3.12",
    ("contextlib", "aclosing"): "3.10", ("contextlib", "chdir"): "3.11",
    ("asyncio", "TaskGroup"): "3.11", ("asyncio", "timeout"): "3.11", ("asyncio", "Runner"): "3.11",
    ("hashlib", "file_digest"): "3.11", ("operator", "call"): "3.11", ("inspect", "get_annotations"): "3.10",
}
NEWER_MODULES = {"tomllib": "3.11", "wsgiref.types": "3.11"}
NEWER_BUILTINS = {"aiter": "3.10", "anext": "3.10", "ExceptionGroup": "3.11", "BaseExceptionGroup": "3.11", "EncodingWarning": "3.10"}
NEWER_METHODS = {"bit_count": "3.10 (int)"}
# Keyword arguments added after 3.9: (function name, keyword).
NEWER_KEYWORDS = {("zip", "strict"): "3.10", ("dataclass", "slots"): "3.10", ("dataclass", "kw_only"): "3.10",
                  ("dataclass", "match_args"): "3.10", ("field", "kw_only"): "3.10"}


def python_files() -> Iterator[str]:
    for folder in ("switchboard", "tests"):
        for dirpath, _dirs, files in os.walk(os.path.join(ROOT, folder)):
            for name in sorted(files):
                if name.endswith(".py"):
                    yield os.path.join(dirpath, name)


def annotations_of(tree: ast.AST) -> Iterator[ast.expr]:
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.annotation is not None:
            yield node.annotation
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            yield node.returns
        elif isinstance(node, ast.AnnAssign):
            yield node.annotation


def union_operator_in(annotation: ast.expr) -> bool:
    """`X | Y` in an annotation (also inside a string annotation) fails when 3.9 evaluates it."""
    for node in ast.walk(annotation):
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            try:
                inner = ast.parse(node.value, mode="eval").body
            except SyntaxError:
                continue
            if union_operator_in(inner):
                return True
    return False


def problems_in(path: str) -> List[str]:
    with open(path, encoding="utf-8") as f:
        source = f.read()
    rel = os.path.relpath(path, ROOT)
    try:
        tree = ast.parse(source, filename=path, feature_version=(3, 9))
    except SyntaxError as e:
        return [f"{rel}:{e.lineno}: not Python 3.9 syntax: {e.msg}"]
    found: List[Tuple[int, str]] = []
    for annotation in annotations_of(tree):
        if union_operator_in(annotation):
            found.append((annotation.lineno, "`X | Y` in an annotation needs 3.10; use Optional/Union"))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in NEWER_MODULES:
                    found.append((node.lineno, f"module {alias.name} needs {NEWER_MODULES[alias.name]}"))
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module in NEWER_MODULES:
                found.append((node.lineno, f"module {node.module} needs {NEWER_MODULES[node.module]}"))
            for alias in node.names:
                if (node.module, alias.name) in NEWER_NAMES:
                    found.append((node.lineno, f"{node.module}.{alias.name} needs {NEWER_NAMES[(node.module, alias.name)]}"))
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and (node.value.id, node.attr) in NEWER_NAMES:
                found.append((node.lineno, f"{node.value.id}.{node.attr} needs {NEWER_NAMES[(node.value.id, node.attr)]}"))
            if node.attr in NEWER_METHODS:
                found.append((node.lineno, f".{node.attr}() needs {NEWER_METHODS[node.attr]}"))
        if isinstance(node, ast.Name) and node.id in NEWER_BUILTINS:
            found.append((node.lineno, f"builtin {node.id} needs {NEWER_BUILTINS[node.id]}"))
        if isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr if isinstance(node.func, ast.Attribute) else None
            for kw in node.keywords:
                if (name, kw.arg) in NEWER_KEYWORDS:
                    found.append((node.lineno, f"{name}({kw.arg}=...) needs {NEWER_KEYWORDS[(name, kw.arg)]}"))
            # 3.9's fromisoformat refuses the "Z" suffix our timestamps carry.
            if name == "fromisoformat":
                found.append((node.lineno, "datetime.fromisoformat() refuses a trailing Z before 3.11"))
    return [f"{rel}:{line}: {what}" for line, what in sorted(found)]


class Python39CompatibilityTests(unittest.TestCase):
    def test_every_file_of_the_sdk_and_its_tests_keeps_to_python_3_9(self) -> None:
        files = list(python_files())
        self.assertGreaterEqual(len(files), 10)
        problems = [p for path in files for p in problems_in(path)]
        self.assertEqual(problems, [])

    def test_the_checker_catches_what_3_9_would_refuse(self) -> None:
        samples = {
            "def f(x: int | None) -> None: ...": "`X | Y`",
            "x: 'list[int] | None' = None": "`X | Y`",
            "import tomllib": "tomllib",
            "from typing import Self": "typing.Self",
            "zip([1], [2], strict=True)": "zip(strict",
            "(5).bit_count()": "bit_count",
            "import datetime\ndatetime.UTC": "datetime.UTC",
            "match 1:\n    case 1: pass": "3.9 syntax",
        }
        scratch = os.path.join(ROOT, "tests", "_py39_sample.tmp")
        try:
            for source, expected in samples.items():
                with open(scratch, "w", encoding="utf-8") as f:
                    f.write(source + "\n")
                found = problems_in(scratch)
                self.assertTrue(any(expected in p for p in found), f"{source!r}: {found}")
        finally:
            if os.path.exists(scratch):
                os.remove(scratch)


if __name__ == "__main__":
    unittest.main()
