"""Places and advice domains (tools/entities.py), and the critic's place resolution (agents/checks/places)."""

from __future__ import annotations

import pytest

from agents.checks.places import PlaceScope, foreign_mentions, mentioned, resolve
from tools.entities import advice_domains, foreign_places, not_places, places, same_place
from tools.lexfiles import LEXICON


def test_places_from_jieba_and_landmark_suffixes() -> None:
    assert places("厦门三天两晚") == ["厦门"]
    assert "老君山" in places("洛阳老君山看日出")
    assert places("城市里的古镇和海岛") == []  # generic geography is listed in not_places.txt


def test_foreign_places_by_containment() -> None:
    assert same_place("杭州", "杭州市区") and not same_place("杭州", "厦门")
    assert foreign_places("先去成都，再回厦门", ["厦门"]) == ["成都"]
    assert foreign_places("西湖边散步", ["杭州西湖"]) == []


def test_advice_domains() -> None:
    assert advice_domains("发烧了先吃布洛芬") == {"medical"}
    assert advice_domains("每月定投基金") == {"financial"}
    assert advice_domains("减脂期一天1200大卡") == {"weight_loss"}
    assert advice_domains("鼓浪屿的日落很美") == set()


def test_not_places_file_is_words() -> None:
    assert {"城市", "古镇", "老城区"} <= not_places()


@pytest.mark.parametrize(
    ("inside", "outer"),
    [
        ("思明区", "厦门"),
        ("鼓浪屿", "厦门"),
        ("福建", "厦门"),
        ("西湖", "杭州"),
        ("顺德", "佛山"),
        ("外滩", "上海"),
    ],
)
def test_places_inside_the_request_agree(inside: str, outer: str) -> None:
    assert PlaceScope.of([outer]).allows(inside)


@pytest.mark.parametrize(
    ("place", "requested"), [("泉州", "厦门"), ("成都", "厦门"), ("外滩", "杭州"), ("首尔", "东京")]
)
def test_places_elsewhere_do_not(place: str, requested: str) -> None:
    assert not PlaceScope.of([requested]).allows(place)


def test_mentioned_skips_dishes_streets_and_generic_words() -> None:
    assert mentioned("兰州拉面和北京烤鸭") == []
    assert mentioned("玉林路老火锅和中山路的沙茶面") == []
    assert mentioned("#老城区") == []
    assert mentioned("之前去重庆玩了两天") == ["重庆"]


def test_english_requests_name_their_places() -> None:
    scope = PlaceScope.of(["Write a post about hiking in Hong Kong"])
    assert "香港" in scope.names
    assert foreign_mentions("香港麦理浩径，回程顺路去深圳", scope) == ["深圳"]
    assert foreign_mentions("香港麦理浩径，深圳出发", scope) == []  # where the trip set out from


def test_every_landmark_city_resolves() -> None:
    """A landmark's city is a division, or a foreign city the world table knows (清水寺 → 京都): never a
    typo that would make it a place of its own."""
    for line in (LEXICON / "landmarks.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, city = line.split("\t")
            place, where = resolve(name), resolve(city)
            assert place is not None and where is not None, name
            abroad = any(c.startswith("world:") for c in place.codes)
            assert not abroad or f"world:{city}" in where.codes, name


def test_regions_spanning_several_divisions() -> None:
    scope = PlaceScope.of(["江浙沪周末周边游推荐"])
    assert foreign_mentions("杭州、苏州和乌镇都不错，别去成都", scope) == ["成都"]
    assert PlaceScope.of(["川渝美食之旅"]).allows("重庆")


def test_countries_contain_their_cities() -> None:
    assert PlaceScope.of(["日本关西自由行"]).allows("京都")
    assert not PlaceScope.of(["日本关西自由行"]).allows("首尔")
    assert PlaceScope.of(["云南旅行"]).allows("大理") and not PlaceScope.of(["云南旅行"]).allows("成都")


def test_place_names_that_are_words_need_place_context() -> None:
    assert mentioned("护肤品开封后半年内用完") == []
    assert mentioned("朝南的阳台日照充足") == []
    assert "开封" in mentioned("周末去开封逛夜市")
    assert "开封" in mentioned("洛阳、开封两座古城都值得去")
    assert "开封" in mentioned("开封的夜市很热闹")


def test_names_inside_structures_and_landmarks_are_not_cities() -> None:
    assert "天门" not in mentioned("晚上去洛阳应天门看灯光秀")
    assert "白城" not in mentioned("厦门白城沙滩的日落很好看")
    assert mentioned("在大厦门口集合") == []
    assert "厦门" in mentioned("从厦门出发坐动车")


def test_theme_words_do_not_straddle_words() -> None:
    from agents.checks.textutil import theme_hits

    assert "早教" not in theme_hits("parenting", "定点上厕所要趁早教。", min_len=2)
    assert "早教" in theme_hits("parenting", "周末带孩子去上早教课。", min_len=2)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("第一次去拉萨，三天两晚怎么安排", ["拉萨"]),  # jieba reads 拉萨 as a transliterated name (nrt)
        ("去大理玩五天", ["大理"]),  # …and 大理 as a noun
        ("大理石台面怎么保养", []),  # marble is no city
        ("长沙臭豆腐在家复刻", []),  # a dish named by its origin, as before
    ],
)
def test_a_city_jieba_does_not_tag_as_a_place_is_one(text: str, found: list[str]) -> None:
    assert places(text) == found
