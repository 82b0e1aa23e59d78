"""Generate data/routing/requests.jsonl: written by hand before the rules were tuned."""
import json
P, Q, T, I = "full_post", "question", "time_query", "image_only"
rows = []
def add(kind, intent, *texts, topic=None):
    for t in texts:
        rows.append({"text": t, "intent": intent, "kind": kind})
# plain post requests, all ten themes
add("post", P,
 "帮我写一篇周末城市露营的小红书笔记，面向上班族",
 "写一篇秋冬通勤穿搭笔记",
 "来一篇适合新手的家常红烧肉做法",
 "给我写个成都三天两夜旅行攻略",
 "敏感肌换季护肤步骤分享",
 "出租屋改造前后对比，写一篇种草文",
 "居家30分钟燃脂训练计划",
 "考研英语备考经验帖",
 "新手养猫必备好物清单",
 "6个月宝宝辅食添加记录",
 "写一篇厦门鼓浪屿一日游笔记",
 "帮我写小红书文案：平价口红测评",
 "大理洱海骑行vlog文案",
 "小户型收纳神器合集",
 "写一篇职场新人第一年的心得",
 "给狗狗做生日蛋糕的教程",
 "杭州西湖带爸妈慢游路线",
 "夏天小个子显高穿搭分享",
 "健身小白一周训练日记",
 "宝妈带娃周末去哪儿玩合集",
 "写条朋友圈风格的露营文案",
 "帮我整理一份新手化妆品清单",
 "顺德早茶探店合集，给第一次去广东的朋友",
 "洛阳两日游攻略，学生党穷游版",
 "做一份上班族带饭便当一周食谱",
 "写一篇关于猫咪绝育前后护理的经验分享",
 "面试前一晚准备清单，写成笔记",
 "分享一下我的早八极速出门妆",
 "安利几款适合油皮的平价防晒",
 "北京胡同citywalk路线推荐",
 "露营新手入门装备盘点",
 "写一篇跑步膝盖保护的干货",
 "帮我写一篇关于极简卧室软装的笔记，配三张图",
 "写一篇笔记并配图：春日野餐",
)
# bare topics: a topic phrased as content to make
add("topic", P,
 "周末露营", "秋冬通勤穿搭", "减脂餐一周食谱", "重庆火锅探店", "新手瑜伽入门",
 "猫咪换粮", "宝宝睡眠训练", "考公上岸", "出租屋软装改造", "云南自驾",
 "如何挑选适合自己的跑鞋", "新手如何化出自然底妆", "租房避坑指南", "周末在家做早午餐",
 "怎样把小阳台变成花园",
)
# traps: a content ask that contains question / time words
add("trap", P,
 "寒假时间规划经验分享，给大学生",
 "上班族时间管理心得，怎么做到不加班",
 "跑步减肥怎么吃，新手食谱推荐",
 "露营需要准备什么？写个清单",
 "宝宝不爱吃饭怎么办？写一篇笔记分享经验",
 "第一次去日本要注意什么，写一篇攻略",
 "几点起床最适合学习？分享我的早起作息",
 "新手养狗需要买哪些东西，整理成清单",
 "考研什么时候开始准备？写篇经验帖",
 "如何在一周内整理好衣柜，写个教程",
 "上海周末去哪儿玩？给我写篇合集",
 "敏感肌能不能用果酸？写一篇测评",
 "护肤品的使用顺序是什么，做成科普笔记",
 "健身房几点人最少？分享我的健身时间表",
 "咖啡店探店，哪些值得去，帮我写成小红书",
 "带娃出门要带什么，亲子出行清单",
 "为什么你的减脂总失败？写一篇干货",
 "今天几号发工资都不重要，分享我的存钱心得",
 "早上几点跑步最好，写一篇跑步心得",
 "星期几去迪士尼人最少，写篇攻略",
 "时间戳相机拍vlog的技巧分享",
 "现在的年轻人为什么爱露营？写一篇笔记",
 "猫咪多久洗一次澡？写成养猫干货笔记",
 "面试常问哪些问题，整理一份合集",
 "装修预算多少合适，写篇经验分享",
 "新手化妆需要买什么？推荐一份清单",
 "周末时间怎么安排才不浪费，写个计划分享",
 "一日三餐怎么搭配，减脂食谱合集",
 "西安有哪些必吃小吃，写一篇探店攻略",
 "宝宝几个月可以吃辅食，整理成育儿笔记",
 "通勤穿什么不出错？写一篇穿搭分享",
 "怎么选适合自己的口红色号，写篇测评",
 "时间管理四象限法则怎么用，写成笔记",
 "周一到周五的健身计划怎么排，出一篇攻略",
 "第一次养仓鼠要准备哪些东西？写个新手清单",
 "上班族如何利用碎片时间学英语，写一篇经验",
)
# English and mixed requests
add("english", P,
 "Write a post about hiking in Hangzhou",
 "write a xiaohongshu post about camping for beginners",
 "Share my skincare routine for sensitive skin",
 "a travel guide to Chengdu",
 "Recommend some budget coffee shops in Shanghai",
 "healthy breakfast recipes for office workers",
 "写一篇 post about home workout",
 "帮我写一篇 Tokyo travel guide 的笔记",
 "weekend camping checklist",
 "How to start running: a guide for beginners",
)
add("english", Q,
 "What should I pack for a camping trip?",
 "How do I stop my cat from scratching the sofa?",
 "is retinol safe for sensitive skin?",
)
add("english", T, "what time is it", "What's the date today?")
add("english", I, "draw a cat in watercolor", "generate a picture of a sunset over the sea")
# real questions: advice or a fact for the asker
add("question", Q,
 "上班族颈椎痛怎么办？",
 "露营一般要带哪些东西？",
 "敏感肌能用果酸吗",
 "猫咪一天喂几次？",
 "红烧肉怎么做才不柴",
 "我家狗狗不吃饭怎么办",
 "减脂期可以吃香蕉吗？",
 "宝宝发烧38度要去医院吗",
 "考研英语一和英语二有什么区别？",
 "防晒霜和隔离哪个先涂？",
 "为什么我跑步膝盖会疼？",
 "小户型沙发选多大的合适？",
 "成都到重庆坐高铁要多久？",
 "面试被问到缺点该怎么回答？",
 "新买的衣服要先洗吗？",
 "油皮适合用什么洗面奶？",
 "请问杭州哪里可以露营？",
 "蛋白粉是不是智商税？",
 "狗狗能吃葡萄吗",
 "今天有什么热点新闻",
 "搜索一下最新的露营政策",
 "简历写几页比较好？",
 "健身后肌肉酸痛正常吗？",
 "我的小红书笔记被限流了怎么办？",
 "宝宝几个月会翻身？",
)
# real time queries
add("time", T,
 "现在几点", "现在几点了？", "今天几号", "今天星期几", "当前时间戳是多少", "今天是几月几号",
 "现在是北京时间几点", "今天周几", "几点了", "今天的日期",
)
# image-only requests
add("image", I,
 "画一张夕阳下的海边", "帮我画只柯基", "生成一张赛博朋克风格的城市夜景", "可以生成超绝美少女吗",
 "给我画一幅水墨山水", "生成一张露营帐篷的海报", "画三张猫咪表情包", "帮我生成一张ins风早餐照片",
 "绘制一幅星空下的雪山", "来画一只在咖啡馆睡觉的橘猫",
)
# hand-marked traps beyond the trap block: questions that look like posts, posts that look like images
add("trap", Q,
 "小红书笔记为什么没有流量？",
 "攻略里说的那家店还开着吗？",
 "有没有人知道露营地哪里能洗澡？",
)
add("trap", P,
 "写一篇笔记，配图要画出露营的氛围",
 "生成一篇周末野餐文案",
 "帮我生成小红书文案：秋天第一杯奶茶",
)
add("trap", P, "写一篇画画入门笔记，零基础怎么开始")
for i, r in enumerate(rows):
    r["split"] = "holdout" if i % 3 == 2 else "train"
with open("data/routing/requests.jsonl", "w", encoding="utf-8") as f:
    for r in rows:
        f.write(json.dumps(r, ensure_ascii=False) + "\n")
from collections import Counter
print(len(rows), Counter(r["intent"] for r in rows), Counter(r["kind"] for r in rows), Counter(r["split"] for r in rows))
print(len(set(r["text"] for r in rows)))
