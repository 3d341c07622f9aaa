"""The base of every generated model: built from JSON by a per-class field table, so
nested models, lists and maps become typed objects, and unknown fields are kept in `extra`."""
from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, Dict, Optional, Tuple, Type

_REGISTRY: Dict[str, Type["Model"]] = {}


def register_models(models: Dict[str, Type["Model"]]) -> None:
    _REGISTRY.update(models)


def convert(spec: Any, value: Any) -> Any:
    """Turns JSON into models following a spec: None (as is), ("model", name), ("list", spec), ("map", spec)."""
    if spec is None or value is None:
        return value
    kind, inner = spec
    if kind == "model":
        return _REGISTRY[inner].from_dict(value) if isinstance(value, dict) else value
    if kind == "list":
        return [convert(inner, v) for v in value] if isinstance(value, list) else value
    if kind == "map":
        return {k: convert(inner, v) for k, v in value.items()} if isinstance(value, dict) else value
    raise ValueError(f"unknown spec {spec!r}")


def to_json(value: Any) -> Any:
    """Models back into JSON-ready dicts (for request bodies that nest models)."""
    if isinstance(value, Model):
        return value.to_dict()
    if isinstance(value, list):
        return [to_json(v) for v in value]
    if isinstance(value, dict):
        return {k: to_json(v) for k, v in value.items()}
    return value


class Model:
    """A typed API object. `last_response` holds the HTTP response it came in, when it came from one."""

    _fields: ClassVar[Tuple[Tuple[str, str, Any], ...]] = ()
    last_response: Any = None
    extra: Optional[Dict[str, Any]] = None

    @classmethod
    def from_dict(cls, data: Dict[str, Any]) -> Any:
        kwargs = {}
        known = set()
        for py_name, json_name, spec in cls._fields:
            known.add(json_name)
            if json_name in data:
                kwargs[py_name] = convert(spec, data[json_name])
        required = {f.name for f in dataclasses.fields(cls) if f.default is dataclasses.MISSING}  # type: ignore[arg-type]
        for name in required - kwargs.keys():
            kwargs[name] = None  # the server left out a field the document requires: keep going
        obj = cls(**kwargs)
        rest = {k: v for k, v in data.items() if k not in known}
        if rest:
            obj.extra = rest
        return obj

    def to_dict(self) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        for py_name, json_name, _ in self._fields:
            value = getattr(self, py_name)
            if value is not None:
                out[json_name] = to_json(value)
        if self.extra:
            out.update(self.extra)
        return out

    def __getitem__(self, json_name: str) -> Any:
        """Dictionary-style access by the JSON name: `call["from"]`."""
        for py_name, name, _ in self._fields:
            if name == json_name:
                return getattr(self, py_name)
        if self.extra and json_name in self.extra:
            return self.extra[json_name]
        raise KeyError(json_name)
