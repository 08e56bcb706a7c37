"""The API's root lists where everything is, and a path no route matches answers in the
API's error shape (the viewer and the admin keep Django's page)."""

from __future__ import annotations

from rest_framework.test import APIClient

from heights_platform.common.index import LINKS


def test_the_root_links_every_entry_point_and_each_answers(api: APIClient) -> None:
    reply = api.get("/api/v1/")
    assert reply.status_code == 200
    links = reply.json()
    assert set(links) == set(LINKS)
    assert links["bots"] == "http://testserver/api/v1/bots/"
    for key in ("bots", "ladders", "matches", "tournaments", "replays", "schema"):
        assert api.get(links[key]).status_code == 200, key
    assert api.get(links["me"]).status_code == 401  # there, for a signed-in user


def test_an_unknown_api_path_is_a_json_404(api: APIClient) -> None:
    for path in ("/api/v1/nothing/", "/api/v1/replays/2/steps/-1/", "/api/v2/"):
        reply = api.get(path)
        assert reply.status_code == 404, path
        assert reply["Content-Type"] == "application/json"
        body = reply.json()
        assert body["code"] == "not_found"
        assert path in body["message"]
        assert body["details"] == {}


def test_outside_the_api_a_404_stays_a_page(api: APIClient) -> None:
    reply = api.get("/viewer/nothing/")
    assert reply.status_code == 404
    assert reply["Content-Type"].startswith("text/html")
