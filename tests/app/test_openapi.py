"""The OpenAPI document states every constraint the server enforces, and the server agrees with it: what the
document calls valid passes validation, what it calls invalid is a 422."""

from __future__ import annotations

import base64
import io
import re
from typing import Any, get_args

import httpx
from jsonschema import Draft202012Validator
from PIL import Image

from app.creatives import Sort
from app.http.auth import SESSION_COOKIE
from app.http.openapi import document
from app.settings import Settings
from tests.serving import asgi_client, bearer, events_of
from tools.accounts import Action, Role
from tools.database import CreativeStatus

MAX_CURSOR = 2**63 - 1
REF = "#/components/schemas/"
ERROR = REF + "Error"
FILTERED = ("/api/creatives", "/api/creatives/stats", "/api/creatives/export.csv")
SSE_OPERATIONS = (
    ("/api/agent/stream", "post"),
    ("/api/agent/confirm", "post"),
    ("/api/agent/threads/{threadId}/events", "get"),
    ("/api/agent/threads/{threadId}/resume", "post"),
)


def schemas() -> dict[str, Any]:
    return dict(document()["components"]["schemas"])


def params(path: str, method: str = "get") -> dict[str, dict[str, Any]]:
    operation = document()["paths"][path][method]
    return {p["name"]: p for p in operation.get("parameters", [])}


def validator(name: str) -> Draft202012Validator:
    """A JSON Schema validator for a component, its `$ref`s resolved within the document."""
    return Draft202012Validator(
        {"$ref": f"#/components/schemas/{name}", "components": document()["components"]}
    )


def png_data_url() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 64), "#D9C6A5").save(buffer, "PNG")
    return "data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode()


# --- the document states the constraints --------------------------------------------------------------------


def test_every_parameter_is_typed_and_bounded() -> None:
    for path, operations in document()["paths"].items():
        for method, operation in operations.items():
            for param in operation.get("parameters", []):
                where = f"{method.upper()} {path} {param['name']}"
                schema = param["schema"]
                assert "type" in schema, where
                if schema["type"] in ("integer", "number"):
                    assert "minimum" in schema and "maximum" in schema, where
                if schema["type"] == "string":
                    assert {"enum", "pattern", "maxLength"} & set(schema), where
                if schema["type"] == "array":
                    assert {"enum", "pattern"} & set(schema["items"]), where
                assert param.get("description"), where


def test_run_request_states_its_rules() -> None:
    run = schemas()["RunRequest"]
    props = run["properties"]
    assert run["additionalProperties"] is False and run["required"] == ["message"]
    assert "strict" in run["description"].lower()  # no JSON type is converted
    assert (props["message"]["minLength"], props["message"]["maxLength"]) == (1, 4000)
    assert props["message"]["pattern"] == r"\S"  # whitespace only is empty once trimmed
    count = props["imageCount"]
    assert (count["type"], count["minimum"], count["maximum"], count["default"]) == ("integer", 1, 9, 4)
    assert {"type": "boolean"} in props["enableHITL"]["anyOf"]
    assert props["layoutPreference"]["enum"] == ["dense", "balanced", "visual-first"]
    assert props["referenceImages"]["maxItems"] == 6
    assert props["threadId"]["anyOf"][0]["pattern"] == r"^[A-Za-z0-9_.:-]{1,100}$"
    for name in ("imageProvider", "model"):
        assert props[name]["anyOf"][0]["maxLength"] == 200
    image = schemas()["ReferenceImageInput"]
    assert image["additionalProperties"] is False
    assert [branch["required"] for branch in image["oneOf"]] == [["data"], ["url"]]  # exactly one of them
    assert all(image["properties"][k]["anyOf"][0]["minLength"] == 1 for k in ("data", "url"))
    assert image["properties"]["type"]["enum"] == ["style", "layout", "content"]


def test_confirm_request_states_its_rules() -> None:
    confirm = schemas()["ConfirmRequest"]
    props = confirm["properties"]
    assert confirm["additionalProperties"] is False and confirm["required"] == ["threadId"]
    assert "strict" in confirm["description"].lower()
    assert props["threadId"]["pattern"] == r"^[A-Za-z0-9_.:-]{1,100}$"
    assert props["action"]["anyOf"][0]["enum"] == ["approve", "reject", "modify"]
    assert props["userFeedback"]["anyOf"][0]["maxLength"] == 4000
    answer = schemas()[props["userResponse"]["anyOf"][0]["$ref"].rsplit("/", 1)[1]]
    assert answer["properties"]["selectedIds"]["items"] == {"type": "string"}
    assert answer["properties"]["customInput"]["anyOf"][0]["maxLength"] == 2000
    assert props["modifiedData"]["anyOf"][0]["type"] == "object"
    # an action or an answer, not null; a reject says what to change, a modify sends the changes
    assert [branch["required"] for branch in confirm["anyOf"]] == [["action"], ["userResponse"]]
    assert [branch["properties"] for branch in confirm["anyOf"]] == [
        {"action": {"type": "string"}}, {"userResponse": {"type": "object"}}
    ]
    rules = {rule["if"]["properties"]["action"]["const"]: rule["then"] for rule in confirm["allOf"]}
    assert rules["reject"]["properties"]["userFeedback"] == {"type": "string", "pattern": r"\S"}
    assert rules["modify"]["properties"]["modifiedData"] == {"type": "object", "minProperties": 1}
    assert "INVALID_CONFIRMATION" in document()["paths"]["/api/agent/confirm"]["post"]["responses"]["422"][
        "description"
    ]


def test_cursors_are_stated() -> None:
    cursor = params("/api/agent/threads/{threadId}/events")
    assert cursor["after"]["schema"] == {"type": "integer", "minimum": 0, "maximum": MAX_CURSOR}
    assert cursor["Last-Event-ID"]["schema"]["pattern"] == "^([0-9]{1,19})?$"  # empty: not given
    assert str(MAX_CURSOR) in cursor["Last-Event-ID"]["description"]
    assert "422" in document()["paths"]["/api/agent/threads/{threadId}/events"]["get"]["responses"]


def test_creative_filters_are_stated() -> None:
    for path in FILTERED:
        p = params(path)
        assert p["status"]["schema"]["items"]["enum"] == [s.value for s in CreativeStatus]
        assert p["sort"]["schema"]["enum"] == list(get_args(Sort))
        assert (p["minScore"]["schema"]["minimum"], p["minScore"]["schema"]["maximum"]) == (0, 1)
        assert (p["limit"]["schema"]["minimum"], p["limit"]["schema"]["maximum"]) == (1, 200)
        assert (p["offset"]["schema"]["minimum"], p["offset"]["schema"]["maximum"]) == (0, 10**9)
        for day in ("from", "to"):
            assert p[day]["schema"]["pattern"] == "^[0-9]{4}-[0-9]{2}-[0-9]{2}$"
        assert (p["q"]["schema"]["maxLength"], p["tag"]["schema"]["maxLength"]) == (200, 100)
        assert all(param["allowEmptyValue"] for param in p.values())  # an empty value is ignored
        assert "422" in document()["paths"][path]["get"]["responses"]
    for path in ("/api/creatives/{id}", "/api/assets/{id}"):
        assert params(path)["id"]["schema"] == {"type": "integer", "minimum": 1, "maximum": MAX_CURSOR}


def test_http_conventions_are_stated() -> None:
    info = document()["info"]["description"]
    assert "nosniff" in info and "Allow" in info and "405" in info
    for path, method in SSE_OPERATIONS:
        responses = document()["paths"][path][method]["responses"]
        assert "text/event-stream" in responses["200"]["content"], path
    for path, method in (("/api/agent/stream", "post"), ("/api/agent/confirm", "post")):
        assert {"400", "413", "422", "503"} <= set(document()["paths"][path][method]["responses"])
    detail = document()["paths"]["/api/creatives/{id}"]["get"]["responses"]["200"]["description"]
    assert "assetHistory" in detail


def operations() -> list[tuple[str, str, dict[str, Any]]]:
    return [
        (path, method, operation)
        for path, item in document()["paths"].items()
        for method, operation in item.items()
    ]


def test_access_is_stated() -> None:
    doc = document()
    assert doc["security"] == [{"bearerAuth": []}, {"sessionCookie": []}]
    schemes = doc["components"]["securitySchemes"]
    assert schemes["bearerAuth"] == {**schemes["bearerAuth"], "type": "http", "scheme": "bearer"}
    assert (schemes["sessionCookie"]["in"], schemes["sessionCookie"]["name"]) == ("cookie", SESSION_COOKIE)
    assert "X-CSRF-Token" in schemes["sessionCookie"]["description"]
    for path, method, operation in operations():
        responses = operation["responses"]
        where = f"{method.upper()} {path}"
        assert "HOST_NOT_ALLOWED" in responses["400"]["description"], where  # the Host check is first
        if path == "/healthz":
            assert operation["security"] == [] and "401" not in responses
            continue
        assert "security" not in operation, where  # the document's: a bearer token or the cookie
        assert responses["401"]["headers"]["WWW-Authenticate"]["schema"]["enum"] == ["Bearer"], where
        assert ("403" in responses) == (path != "/api/me"), where  # every other one may be refused a role
        assert ("415" in responses) == (method == "post"), where  # every POST is under /api/
        for status, response in responses.items():
            if status >= "400":
                assert response["content"]["application/json"]["schema"] == {"$ref": ERROR}, where
    for path in ("/api/agent/stream", "/api/agent/threads/{threadId}/resume"):  # the per-user run limits
        limited = document()["paths"][path]["post"]["responses"]["429"]
        retry = limited["headers"]["Retry-After"]
        assert retry["required"] and retry["schema"] == {"type": "integer", "minimum": 1}
        assert "RATE_LIMITED" in limited["description"]
    # the login, logout and account pages are HTML forms, like the studio's pages not in the document
    assert not {"/login", "/logout", "/account", "/account/password"} & set(doc["paths"])
    assert "/login" in doc["info"]["description"] and "X-CSRF-Token" in doc["info"]["description"]


def test_accounts_and_ownership_are_stated() -> None:
    me = schemas()["Me"]
    assert set(me["required"]) == {"userId", "name", "role", "roleLabel", "via", "permissions", "csrfToken"}
    assert me["properties"]["via"]["enum"] == ["password", "token", "session"]
    assert schemas()["Role"]["enum"] == [role.value for role in Role]
    assert schemas()["Action"]["enum"] == [action.value for action in Action]
    record = schemas()["AuditRecord"]
    assert set(record["required"]) == {
        "id", "at", "actor", "action", "actionLabel", "threadId", "creativeId", "details"
    }
    assert schemas()["AuditTrail"]["required"] == ["items"]
    audit = document()["paths"]["/api/creatives/{id}/audit"]["get"]
    assert audit["responses"]["200"]["content"]["application/json"]["schema"] == {"$ref": REF + "AuditTrail"}
    assert {"404", "403"} <= set(audit["responses"]) and params("/api/creatives/{id}/audit")["id"]
    inbox = schemas()["InboxEntry"]
    assert {"startedBy", "waitingFor", "lastAction"} <= set(inbox["required"])
    assert set(schemas()["WaitingFor"]["required"]) == {"owner", "roles", "label"}
    assert set(schemas()["LastAction"]["required"]) == {"actor", "action", "at"}
    assert "startedBy" in schemas()["CreativeSummary"]["required"]
    assert {"startedBy", "ownerId"} <= set(schemas()["CreativeDetail"]["required"])
    for name in ("CreativeSummary", "CreativeDetail"):
        assert schemas()[name]["properties"]["status"] == {"$ref": REF + "CreativeStatus"}


# --- the server agrees with the document --------------------------------------------------------------------


async def test_the_server_takes_what_the_document_allows_and_refuses_the_rest(api: httpx.AsyncClient) -> None:
    for path in FILTERED:
        p = params(path)
        cases: list[tuple[str, str]] = []
        for name in ("limit", "offset", "minScore"):
            schema = p[name]["schema"]
            low, high = schema["minimum"], schema["maximum"]
            step = 1 if schema["type"] == "integer" else 0.01
            cases += [(name, str(low)), (name, str(high)), (name, str(low - step)), (name, str(high + step))]
        cases += [("sort", s) for s in p["sort"]["schema"]["enum"]] + [("sort", "-bogus")]
        cases += [("status", s) for s in p["status"]["schema"]["items"]["enum"]] + [("status", "done")]
        pattern = p["from"]["schema"]["pattern"]
        days = ("2026-06-01", "2026-06-01T00:00", "2026-6-1")
        cases += [(name, value) for name in ("from", "to") for value in days]
        cases += [("q", "露" * 200), ("q", "露" * 201), ("tag", "t" * 100), ("tag", "t" * 101)]
        for name, param in p.items():  # an empty value is allowed and ignored
            assert param["allowEmptyValue"]
            assert (await api.get(path, params={name: ""})).status_code == 200, (path, name)
        for name, value in cases:
            schema = p[name]["schema"]
            schema = schema.get("items", schema)
            valid = Draft202012Validator(schema).is_valid(
                value if schema.get("type", "string") == "string" else float(value)
            )
            if name in ("from", "to"):
                assert valid == bool(re.fullmatch(pattern.strip("^$"), value)), value
            response = await api.get(path, params={name: value})
            assert response.status_code == (200 if valid else 422), (path, name, value, response.text[:200])

    cursor = params("/api/agent/threads/{threadId}/events")
    first = events_of((await api.post("/api/agent/stream", json={"message": "周末露营笔记"})).text)
    events = f"/api/agent/threads/{first[0]['threadId']}/events"
    for value in (0, MAX_CURSOR, -1, MAX_CURSOR + 1):
        valid = Draft202012Validator(cursor["after"]["schema"]).is_valid(value)
        assert (await api.get(events, params={"after": str(value)})).status_code == (200 if valid else 422)
    header = re.compile(cursor["Last-Event-ID"]["schema"]["pattern"])
    for value in ("7", "0" * 19, "", "0" * 20, "²", "-1"):
        response = await api.get(events, headers={"Last-Event-ID": value.encode()})
        assert response.status_code == (200 if header.match(value) else 422), value
        both = await api.get(events, headers={"Last-Event-ID": "3"}, params={"after": value})  # each checked
        assert both.status_code == (200 if header.match(value) else 422), value

    # bodies: valid ones pass validation and reach the thread check (409: the thread exists), others are 422
    thread = first[0]["threadId"]
    image = png_data_url()
    starts: list[dict[str, Any]] = [
        {"message": "露营"},
        {"message": "露营", "imageCount": 9, "enableHITL": False, "layoutPreference": "dense"},
        {"message": "露营", "referenceImages": [{"data": image, "type": "layout"}]},
        {"message": "露营", "imageCount": 10},
        {"message": "露营", "imageCount": True},
        {"message": "露营", "imageCount": "4"},
        {"message": "露营", "enableHITL": "yes"},
        {"message": "   "},
        {"message": "露" * 4001},
        {"message": "露营", "referenceImages": [{"data": image, "url": "https://example.com/a.png"}]},
        {"message": "露营", "referenceImages": [{}]},
        {"message": "露营", "referenceImages": [{"data": "", "url": "https://example.com/a.png"}]},
        {"message": "露营", "referenceImages": [{"data": image}] * 7},
        {"message": "露营", "colour": "red"},
        {"message": "露营", "threadId": "a b"},
    ]
    run = validator("RunRequest")
    for start in starts:
        body = {"threadId": thread, **start}
        response = await api.post("/api/agent/stream", json=body)
        expected = 409 if run.is_valid(body) else 422
        assert response.status_code == expected, (start.keys(), response.text[:300])
    confirms: list[dict[str, Any]] = [
        {"threadId": "nope", "action": "approve"},
        {"threadId": "nope", "action": "reject", "userFeedback": "短一点"},
        {"threadId": "nope", "userResponse": {"selectedIds": ["outdoor"], "customInput": "周末"}},
        {"threadId": "nope", "action": "approve", "interruptId": "x"},
        {"threadId": "nope", "action": True},
        {"threadId": "nope", "action": "approve", "userFeedback": 5},
        {"threadId": "nope", "action": "reject", "userFeedback": "长" * 4001},
        {"threadId": "nope", "userResponse": {"selectedIds": "outdoor"}},
        {"threadId": "nope", "userResponse": {"customInput": "长" * 2001}},
        {"threadId": "nope", "modifiedData": []},
        {"threadId": "no pe", "action": "approve"},
        {"action": "approve"},
    ]
    confirm = validator("ConfirmRequest")
    for body in confirms:
        response = await api.post("/api/agent/confirm", json=body)
        assert response.status_code == (404 if confirm.is_valid(body) else 422), (body, response.text[:300])
    nothing = {"threadId": thread}  # neither an action nor an answer: refused once the thread is found
    assert not confirm.is_valid(nothing)
    assert (await api.post("/api/agent/confirm", json=nothing)).status_code == 422


# --- every answer the server gives is one the document states ---------------------------------------------


def check_documented(path: str, method: str, response: httpx.Response) -> dict[str, Any]:
    """The response's status is documented for the operation, with its required headers, and a JSON body
    matches the documented schema; returns the documented response."""
    where = f"{method.upper()} {path}: {response.status_code} {response.text[:200]}"
    documented = document()["paths"][path][method]["responses"]
    assert str(response.status_code) in documented, where
    expected = documented[str(response.status_code)]
    for name, header in expected.get("headers", {}).items():
        if header.get("required") or name == "WWW-Authenticate":
            value = response.headers.get(name)
            assert value is not None, where
            typed: Any = int(value) if header["schema"]["type"] == "integer" else value
            errors = list(Draft202012Validator(header["schema"]).iter_errors(typed))
            assert not errors, (where, name, errors)
    media = response.headers.get("content-type", "").split(";")[0]
    schema = expected.get("content", {}).get(media, {}).get("schema")
    if media == "application/json" and schema is not None:
        full = {**schema, "components": document()["components"]}
        errors = list(Draft202012Validator(full).iter_errors(response.json()))
        assert not errors, (where, [e.message[:200] for e in errors[:3]])
    return expected


def concrete(path: str, thread: str, creative: int) -> str:
    return path.replace("{threadId}", thread).replace("{id}", str(creative))


async def test_every_operation_answers_as_documented_to_those_the_guard_stops(api: httpx.AsyncClient) -> None:
    for path, method, _operation in operations():
        url = concrete(path, "t", 1)
        anonymous = api.build_request(method.upper(), url)
        del anonymous.headers["authorization"]
        response = await api.send(anonymous)
        if path == "/healthz":
            assert response.status_code == 200
            continue
        check_documented(path, method, response)
        assert response.status_code == 401 and response.json()["error"]["code"] == "UNAUTHENTICATED"
        other_host = await api.request(method.upper(), url, headers={"Host": "rebinding.example"})
        check_documented(path, method, other_host)
        assert other_host.json()["error"]["code"] == "HOST_NOT_ALLOWED"
        if method == "post":
            not_json = await api.post(url, content=b"a=1", headers={"Content-Type": "text/plain"})
            check_documented(path, method, not_json)
            assert not_json.json()["error"]["code"] == "UNSUPPORTED_MEDIA_TYPE"
            elsewhere = await api.post(url, json={}, headers={"Origin": "https://evil.example"})
            check_documented(path, method, elsewhere)
            assert elsewhere.json()["error"]["code"] == "FORBIDDEN"


async def test_every_operation_answers_as_documented_to_each_role(api: httpx.AsyncClient) -> None:
    """Over a real run: the admin's answers and those of the least entitled roles (an analyst, a creator who
    owns nothing) are documented statuses with bodies that match their schemas."""
    first = events_of((await api.post("/api/agent/stream", json={"message": "周末露营笔记"})).text)
    thread, creative = first[0]["threadId"], 1
    accounts = api._transport.app.state.accounts  # type: ignore[attr-defined]
    tokens = {}
    for name, role in (("anna", "analyst"), ("alice", "creator")):
        await accounts.add_user(name, role, None, actor="test")
        tokens[name], _ = await accounts.create_token(name, actor="test")
    bodies: dict[str, Any] = {
        "/api/agent/stream": {"message": "露营", "imageCount": 1, "threadId": thread},  # 409: it exists
        "/api/agent/confirm": {"threadId": thread, "action": "reject"},  # 422: a reject needs feedback
    }
    seen: dict[str, set[int]] = {}
    for who in ("admin", "anna", "alice"):
        headers = bearer(tokens[who]) if who in tokens else {}
        for path, method, _operation in operations():
            if (path, who) == ("/api/agent/threads/{threadId}/cancel", "admin"):
                continue  # keeps the thread paused for the others
            kwargs: dict[str, Any] = {"headers": headers}
            if path in bodies:
                kwargs["json"] = bodies[path]
            response = await api.request(method.upper(), concrete(path, thread, creative), **kwargs)
            check_documented(path, method, response)
            seen.setdefault(f"{method} {path}", set()).add(response.status_code)
    assert seen["get /api/me"] == {200} and seen["get /api/creatives/{id}/audit"] == {200, 403}
    assert seen["get /api/agent/inbox"] == {200, 403} and seen["post /api/agent/stream"] == {409, 403}
    assert seen["post /api/agent/confirm"] == {422, 403}  # the analyst may not; alice does not own it
    assert 200 in seen["get /api/creatives/{id}"] and 200 in seen["get /api/agent/threads/{threadId}/events"]


async def test_the_run_limits_answer_as_documented(seeded_settings: Settings) -> None:
    seeded_settings.max_starts_per_minute = 1
    async with asgi_client(seeded_settings) as api:
        await api.post("/api/agent/stream", json={"message": "周末露营笔记", "enableHITL": False})
        limited = await api.post("/api/agent/stream", json={"message": "周末露营笔记"})
        assert limited.status_code == 429
        check_documented("/api/agent/stream", "post", limited)
