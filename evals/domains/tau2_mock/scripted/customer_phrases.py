"""What the `tau2_mock` customer says, in English and in Simplified Chinese (the engine's
`evals.engine.sandbox.phrases`). Task and user ids and task titles go in as they are. What
τ²'s scenario text says in its own words (an `other` request, what it says of a task it cannot
name) is English; the Chinese customer says it in Chinese where `SCENARIO_ZH` knows the
sentence, and otherwise quotes it."""

from __future__ import annotations

import re

from evals.engine.sandbox.phrases import BASE, EN, ZH, phrasebook

PHRASES = phrasebook(
    BASE,
    {
        EN: {
            "hello": "Hello. {request}",
            "that_is_all": "That's all.",
            "create": "Please create a new task called '{title}' for {user_id}.",
            "mark": "Please mark {task_id} as {status}.",
            "mark_unnamed": "I want to mark the task as {status}.",
            "compliment": "Could you also give me a compliment?",
            "status_completed": "completed",
            "status_pending": "pending",
            "its_user_id": "It's {user_id}.",
            "no_user_id": "I don't know my user id.",
            "my_side_done": "I have done my part on my side too. That's all, thanks.",
            "all_thanks": "That's all, thank you.",
            "all_thanks_anyway": "Okay. That's all, thanks anyway.",
            "what_do_you_need": "Sorry, what do you need from me?",
            "no_thanks": "No, thanks. That's all.",
            "yes_please": "Yes, please.",
            "not_asked": "No, that's not what I asked for. {request}",
            "dont_know": "Sorry, I don't know that.",
            "its_task": "It's {task_id}.",
            "told_task": "It's {task_id}, the one you told me about.",
            "no_task_id": "I don't know its id.",
            "title_is": "The title is '{title}'.",
            "no_description": "No description is needed.",
            "mark_it": "Mark it as {status}.",
            "checked": "I've checked my notifications.",
            "dismissed": "I've dismissed the notification.",
            "cannot": "Sorry, I can't do that.",
            "quoted": "{text}",
        },
        ZH: {
            "hello": "你好。{request}",
            "that_is_all": "就这些。",
            "create": "请为 {user_id} 新建一个任务，标题叫 '{title}'。",
            "mark": "请把 {task_id} 标记为{status}。",
            "mark_unnamed": "我想把那个任务标记为{status}。",
            "compliment": "你能顺便夸夸我吗？",
            "status_completed": "已完成",
            "status_pending": "待处理",
            "its_user_id": "是 {user_id}。",
            "no_user_id": "我不知道我的用户编号。",
            "my_side_done": "我这边也已经处理好了。就这些，谢谢。",
            "all_thanks": "就这些，谢谢。",
            "all_thanks_anyway": "好吧。就这些，还是谢谢你。",
            "what_do_you_need": "不好意思，你需要我提供什么？",
            "no_thanks": "不用了，谢谢。就这些。",
            "yes_please": "好的，请办理。",
            "not_asked": "不对，我要的不是这个。{request}",
            "dont_know": "不好意思，这个我不知道。",
            "its_task": "是 {task_id}。",
            "told_task": "是 {task_id}，就是你刚才说的那个。",
            "no_task_id": "我不知道它的编号。",
            "title_is": "标题是 '{title}'。",
            "no_description": "不需要描述。",
            "mark_it": "标记为{status}。",
            "checked": "我已经看过我的通知了。",
            "dismissed": "我已经把那条通知关掉了。",
            "cannot": "不好意思，这个我做不了。",
            "quoted": "我想说的是：“{text}”",
        },
    },
)

# τ²'s scenario sentences (as the customer says them, in the first person) the Chinese customer
# has words for.
SCENARIO_ZH: tuple[tuple[re.Pattern[str], str], ...] = (
    (
        re.compile(r"^I want to delete all my (?:current )?tasks\.?$", re.I),
        "我想删除我现在所有的任务。",
    ),
    (
        re.compile(r"^The previous discussion was about creating a task\.?$", re.I),
        "我们之前聊的是新建任务的事。",
    ),
)


def scenario_zh(text: str) -> str | None:
    """A scenario sentence in Chinese, or None when the customer has no words for it."""
    return next((zh for pattern, zh in SCENARIO_ZH if pattern.match(text.strip())), None)
