"""The frame of every trip's days, said a few ways so trip posts share no line: arriving and dropping the
bags, an evening that is not packed, leaving time to get back (the offline writer's day plans,
`tools.offline.itinerary`). The card overlays read it too: a summary card sums up what a trip does, not
the frame every trip has. General and hand-written: no place, price or sight.
"""

from __future__ import annotations

ARRIVE = (
    "到了先去住处放下行李，在附近走走，熟悉一下周边",
    "先去住的地方放下行李，就近找个地方吃饭，慢慢进入状态",
    "落地先办入住，行李一放，轻装出门",
)
FIRST_EVENING = (
    "第一天别排太满，晚上早点回住处休息，第二天才有体力",
    "晚上不安排远的地方，住处附近转转就回去歇着",
)
EVENING = (
    "找一家本地人多的馆子吃晚饭，吃完沿街散散步",
    "晚饭后别急着回去，出门走一走，看看这里夜里的样子",
)
LEAVE = (
    "留出返程的时间，提前一个多小时往车站或机场走",
    "早点收拾行李往回走，别把返程卡得太紧",
)
REST = "不排固定行程，想逛就逛，累了就在住处附近歇着，给后面留点体力"
ONE_DAY_END = ("傍晚前把想去的地方走完，回程别赶最后一班车", "天黑前往回走，别赶最后一班车")
HALF_DAY_END = ("吃过午饭就往回走，半天刚刚好", "午饭后找个地方歇歇脚，半天的行程就到这")
FRAME = (*ARRIVE, *FIRST_EVENING, *EVENING, *LEAVE, REST, *ONE_DAY_END, *HALF_DAY_END)  # every trip's
