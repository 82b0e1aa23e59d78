"""Make a composed value conform to a JSON Schema (the subset pydantic emits).

Composers write what they know; `conform` fills required fields they left out, drops unknown keys,
trims lists and strings to their limits and clamps numbers, so the offline answer always validates
against the output model the caller asked for — including tasks the offline provider has no composer
for (`generate` invents a schema-valid value from the request's own words).
"""

from __future__ import annotations

import re
from typing import Any

_HEX = re.compile(r"^#[0-9A-Fa-f]{6}$")


class _Schema:
    def __init__(self, root: dict[str, Any], words: list[str]) -> None:
        self.root = root
        self.words = words or ["内容"]
        self._n = 0

    def resolve(self, schema: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in schema:
            name = schema["$ref"].rsplit("/", 1)[-1]
            schema = {
                **self.root.get("$defs", {}).get(name, {}),
                **{k: v for k, v in schema.items() if k != "$ref"},
            }
        if "allOf" in schema and len(schema["allOf"]) == 1:
            schema = {**self.resolve(schema["allOf"][0]), **{k: v for k, v in schema.items() if k != "allOf"}}
        return schema

    def _word(self) -> str:
        self._n += 1
        return self.words[(self._n - 1) % len(self.words)]

    def generate(self, schema: dict[str, Any]) -> Any:
        schema = self.resolve(schema)
        if "default" in schema:
            return schema["default"]
        if "enum" in schema:
            return schema["enum"][0]
        if "const" in schema:
            return schema["const"]
        options = schema.get("anyOf") or schema.get("oneOf")
        if options:
            non_null = [o for o in options if self.resolve(o).get("type") != "null"]
            return self.generate(non_null[0]) if non_null else None
        kind = schema.get("type")
        if kind == "object":
            props = schema.get("properties", {})
            return {k: self.generate(props[k]) for k in schema.get("required", []) if k in props}
        if kind == "array":
            return [self.generate(schema.get("items", {})) for _ in range(schema.get("minItems", 0))]
        if kind == "string":
            return self.fit_string(self._word(), schema)
        if kind == "integer":
            return int(
                schema.get(
                    "minimum", schema.get("exclusiveMinimum", 0) + 1 if "exclusiveMinimum" in schema else 1
                )
            )
        if kind == "number":
            low, high = schema.get("minimum", 0.0), schema.get("maximum", 1.0)
            return round((low + high) / 2, 2)
        if kind == "boolean":
            return False
        if kind == "null":
            return None
        return self._word()

    def fit_string(self, value: str, schema: dict[str, Any]) -> str:
        pattern = schema.get("pattern")
        if pattern and not re.search(pattern, value):
            value = "#888888" if _HEX.pattern == pattern or "0-9A-Fa-f" in pattern else value
        low, high = schema.get("minLength", 0), schema.get("maxLength")
        if high is not None and len(value) > high:
            value = value[:high]
        while len(value) < low:
            value = (value + " " + self._word()).strip()
        return value[:high] if high is not None else value

    def conform(self, value: Any, schema: dict[str, Any]) -> Any:
        schema = self.resolve(schema)
        if "enum" in schema:
            return value if value in schema["enum"] else schema["enum"][0]
        options = schema.get("anyOf") or schema.get("oneOf")
        if options:
            if value is None and any(self.resolve(o).get("type") == "null" for o in options):
                return None
            for option in options:
                resolved = self.resolve(option)
                if resolved.get("type") != "null" and _matches(value, resolved):
                    return self.conform(value, resolved)
            return self.generate(schema)
        kind = schema.get("type")
        if kind == "object":
            if not isinstance(value, dict):
                return self.generate(schema)
            props = schema.get("properties", {})
            out = {k: self.conform(v, props[k]) for k, v in value.items() if k in props}
            for key in schema.get("required", []):
                if key not in out and key in props:
                    out[key] = self.generate(props[key])
            return out
        if kind == "array":
            items = value if isinstance(value, list) else ([] if value is None else [value])
            items = [self.conform(v, schema.get("items", {})) for v in items]
            if "maxItems" in schema:
                items = items[: schema["maxItems"]]
            while len(items) < schema.get("minItems", 0):
                items.append(self.generate(schema.get("items", {})))
            return items
        if kind == "string":
            if value is None:
                return self.generate(schema)
            return self.fit_string(value if isinstance(value, str) else str(value), schema)
        if kind in ("integer", "number"):
            try:
                number: float = float(value)
            except (TypeError, ValueError):
                return self.generate(schema)
            if "minimum" in schema:
                number = max(number, schema["minimum"])
            if "maximum" in schema:
                number = min(number, schema["maximum"])
            return round(number) if kind == "integer" else number
        if kind == "boolean":
            return bool(value)
        return value


def _matches(value: Any, schema: dict[str, Any]) -> bool:
    kind = schema.get("type")
    return {
        "object": isinstance(value, dict),
        "array": isinstance(value, list),
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": isinstance(value, int | float) and not isinstance(value, bool),
        "boolean": isinstance(value, bool),
    }.get(str(kind), True)


def conform(value: Any, schema: dict[str, Any], *, words: list[str] | None = None) -> Any:
    """`value` made valid for `schema`; `words` feed any text the schema requires but the value lacks."""
    return _Schema(schema, words or []).conform(value, schema)


def generate(schema: dict[str, Any], *, words: list[str] | None = None) -> Any:
    """A schema-valid value built from `words`."""
    return _Schema(schema, words or []).generate(schema)
