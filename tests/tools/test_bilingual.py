"""English and mixed requests read in Chinese (tools/bilingual.py): the topic names the thing as a Chinese
creator would — the doing with its object (睡袋选购, 猫咪剪指甲), a setting before it (在家), a span of time
(15分钟搞定), the reader apart (，给上班族) — with no English left where the word list knows the words, and a
mixed request's English said once."""

from __future__ import annotations

import pytest

from tools.bilingual import localize
from tools.offline.text import extract_audience
from tools.offline.topic import extract_topic


@pytest.mark.parametrize(
    ("request_text", "topic", "audience"),
    [
        (
            "Write a post about making scallion oil noodles at home in under 15 minutes, aimed at busy "
            "office workers.",
            "15分钟搞定葱油拌面",
            "上班族",
        ),
        (
            "Could you put together a Xiaohongshu note on trimming a nervous cat's claws at home without "
            "getting scratched?",
            "胆小的猫咪在家剪指甲",
            None,
        ),
        ("Write a post about choosing a sleeping bag for winter camping", "冬季露营睡袋选购", None),
        (
            "Write a post about styling a white shirt for work, aimed at petite women",
            "通勤白衬衫穿搭",
            "小个子女生",
        ),
        ("Share my recipe for braised pork belly that isn't greasy", "红烧肉食谱", None),
        ("How to write a weekly report your boss will actually read", "周报写法", None),
        ("Write a 20-minute resistance band workout for office workers", "20分钟弹力带健身", "上班族"),
        ("Write about visiting the Forbidden City without the crowds", "错峰逛故宫", None),
        ("Write a post about potty training a toddler in one week", "一周搞定幼儿如厕训练", None),
        ("What to do with a picky eater: tips for parents", "宝宝挑食应对技巧", "爸妈"),
        ("Help my child get ready for starting kindergarten", "孩子入园准备", None),
        ("Share my experience quitting my job after three years", "三年后离职", None),
        # mixed: the English said again in Chinese beside it is said once
        ("帮我写一篇 resistance band 弹力带 home workout 笔记，给上班族", "弹力带居家健身", "上班族"),
        ("帮我写个 hot pot 火锅 dipping sauce 蘸料攻略", "火锅蘸料攻略", None),
        ("写一篇 sourdough 酸种面包入门笔记", "酸种面包入门", None),
    ],
)
def test_english_requests_read_as_a_chinese_topic(
    request_text: str, topic: str, audience: str | None
) -> None:
    assert extract_topic(request_text) == topic
    assert extract_audience(request_text) == audience


def test_a_possessive_puts_the_owner_first() -> None:
    assert localize("How to brush a dog's teeth without a fight") == "狗狗刷牙"
    assert localize("a cat's claws") == "猫咪指甲"


def test_an_opening_gerund_is_rendered_or_dropped() -> None:
    assert localize("Share my experience getting rid of closed comedones") == "告别闭口"  # the list's doing
    assert localize("Write about using a rice cooker") == "电饭煲"  # an unknown -ing only opens the subject


def test_a_mixed_request_drops_only_the_english_its_chinese_already_says() -> None:
    # the Chinese after it names the thing
    assert localize("帮我写一篇 Jellycat 玩偶清洗的笔记") == "帮我写一篇玩偶清洗的笔记"
    assert localize("写一篇 Uniqlo 穿搭笔记") == "写一篇Uniqlo穿搭笔记"  # 穿搭 names no thing: kept
    assert localize("帮我生成一张ins风早餐照片") == "帮我生成一张ins风早餐照片"  # glued on: part of the word
    assert localize("写一篇 Perth 旅行攻略") == "写一篇Perth旅行攻略"


def test_trailing_qualifiers_go_and_settings_come_first() -> None:
    assert localize("How to pick hiking boots that don't give you blisters") == "登山鞋选购"
    assert localize("Write about organizing a tiny closet in a rental apartment") == "出租屋小衣柜整理收纳"
    assert localize("Share my small bedroom makeover on a budget") == "平价小卧室改造"
    assert localize("Write a post about fixing rounded shoulders with daily stretches") == "每日拉伸改善圆肩"
    assert localize("hiking with kids in Hangzhou") == "杭州带孩子徒步"
    assert localize("people with oily skin") == "油皮人群"
