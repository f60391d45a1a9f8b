"""Every sentence the retail reference agent says, in several independent wordings.

The agent's logic is one; its words are a table chosen by the agent param `phrasing`
(`sandbox/reference` with `params={"phrasing": "en-2"}`). "en" is the reference wording; the
others are rewordings written without reusing its phrases, so that running them shows whether
the scripted customer understands an agent by what it means rather than by how the reference
agent happens to say it. Each entry is a `str.format` template; refusals must still say the
policy's reason (the oracle's communicate check reads it), and a proposal must name its action
with one of the tool's confirmation words and show each key value as the tool takes it
("gift_card", "no longer needed"): the policy guard checks the summary literally.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

Table = MappingProxyType[str, str]

_EN: dict[str, str] = {
    "ask_identity": "Before I can help, I need to verify your identity. Could you give me the "
    "email address of your account, or your full name and zip code?",
    "explain_identity": "I need to verify who you are before I can look at or change anything "
    "on your account; that protects your orders and your money.",
    "account_not_found": "I couldn't find an account with {tried}.",
    "ask_order": "Could you give me the order id (it looks like #W1234567)?",
    "ask_reason": "What is the reason for the cancellation: no longer needed, or ordered by "
    "mistake?",
    "ask_refund_to": "Should the refund go to your original payment method or to your gift card?",
    "ask_items": "Which items from order {order} do you mean? It has: {names}.",
    "ask_option": "Which option would you like instead? Available: {options}.",
    "ask_address": "What is the new address (street, city, zip code)?",
    "ask_amount": "How much would you like refunded for the damaged item?",
    "anything_else": "Is there anything else I can help you with?",
    "how_can_i_help": "How can I help you today?",
    "order_not_found": "I couldn't find order {order}.",
    "declined": "Okay, I won't do that.",
    "refund_status": "Order {order}: paid ${paid}, refunded ${refunded} so far.",
    "transfer": "YOU ARE BEING TRANSFERRED TO A HUMAN AGENT. PLEASE HOLD ON.",
    "write_failed": "I'm sorry, I can't complete that: {error}",
    "refuse": "I'm sorry, I can't {why} Is there anything else I can help you with?",
    "why_other_account": "help with order {order}: it belongs to another account.",
    "why_address": "change the address of order {order}: {status}, and only pending orders can "
    "be changed.",
    "why_cancel": "cancel order {order}: {status}, and only pending orders can be cancelled.",
    "why_not_delivered": "do that for order {order}: {status}, and only delivered items can be "
    "returned, exchanged or refunded as damaged.",
    "why_window": "do that for order {order}: it was delivered {days} days ago, outside the "
    "{window}-day return window.",
    "why_amount": "request ${amount} for the {item} on order {order}: a damaged-item refund is "
    "at most the item's price, ${price}.",
    "status_pending": "it is still pending, not delivered",
    "status_processed": "it has already been processed",
    "status_delivered": "it is already delivered",
    "status_cancelled": "it is already cancelled",
    "propose_default_address": "To confirm: I will change your default address to {address}.",
    "propose_order_address": "To confirm: I will change the shipping address of order {order} "
    "({names}) to {address}.",
    "order_named": "{order} ({names})",
    "propose_cancel": "To confirm: I will cancel order {order} ({names}), reason: {reason}. The "
    "total of ${total} goes back to your original payment method.",
    "propose_return": "To confirm: I will return {items} from order {order} and refund ${total} "
    "to {where} ({method}).",
    "propose_exchange": "To confirm: I will exchange the {item} ({option}, item {item_id}) on "
    "order {order} for the {new} one (item {new_id}); the price difference of ${diff} is "
    "settled with {where} ({method}).",
    "propose_damaged": "To confirm: I will submit a refund request of ${amount} for the damaged "
    "{item} (item {item_id}) on order {order}. A human approver must approve it.",
    "item_listed": "{name} ({option}, item {item_id})",
    "gift_card": "your gift card",
    "original_payment": "your original payment method",
    "reason_no longer needed": "no longer needed",
    "reason_ordered by mistake": "ordered by mistake",
    "done_cancel_pending_order": "Done: order {order_id} has been cancelled; ${refunded} will be "
    "refunded.",
    "done_return_delivered_items": "Done: the return on order {order_id} has been requested; "
    "${refund} refund to {refund_to}.",
    "done_exchange_delivered_items": "Done: the exchange on order {order_id} has been requested "
    "(price difference ${price_difference}).",
    "done_modify_order_address": "Done: the shipping address of order {order_id} is now "
    "{shipping_address}.",
    "done_modify_default_address": "Done: your default address is now {default_address}.",
    "done_request_refund": "Done: a refund request of ${amount} on order {order_id} was "
    "submitted; it waits for approval by a human approver.",
    "proceed": "{summary} Shall I proceed? (yes/no)",
    "reassure": "I understand. {summary} Shall I proceed? (yes/no)",
}

_EN_2: dict[str, str] = {
    "ask_identity": "First I have to make sure I'm talking to the account holder. What's the "
    "e-mail on the account? If you don't have it, your first and last name plus your ZIP works.",
    "explain_identity": "It's a security step: nobody gets to see or change an account's orders "
    "until we know they own it.",
    "account_not_found": "Hmm, nothing on our side matches {tried}.",
    "ask_order": "What's the order number? It starts with W followed by seven digits.",
    "ask_reason": "May I ask why you're cancelling? Was it ordered by mistake, or do you just "
    "not need it anymore?",
    "ask_refund_to": "Where do you want the money back: the card you paid with, or a gift card?",
    "ask_items": "Order {order} contains {names}. Which of those are we talking about?",
    "ask_option": "What would you like to swap it for? We have {options} in stock.",
    "ask_address": "Please type the full new address: street, city and ZIP.",
    "ask_amount": "What refund amount are you asking for on the broken item?",
    "anything_else": "Can I do anything more for you?",
    "how_can_i_help": "What can I do for you?",
    "order_not_found": "There's no order {order} in our system.",
    "declined": "Alright, I'll leave it as it is.",
    "refund_status": "For order {order} you paid ${paid}, and ${refunded} has come back to you "
    "so far.",
    "transfer": "I'm passing you to a human colleague now, please stay on the line.",
    "write_failed": "Unfortunately that didn't go through: {error}",
    "refuse": "Unfortunately I'm unable to {why} Can I do anything more for you?",
    "why_other_account": "look into order {order}, since it is registered to a different customer.",
    "why_address": "update where order {order} ships, because {status}; shipping addresses only "
    "change while an order is pending.",
    "why_cancel": "cancel order {order}, because {status}; cancelling is only possible while an "
    "order is pending.",
    "why_not_delivered": "help with order {order} that way, because {status}; returns, "
    "exchanges and damage refunds apply to delivered items only.",
    "why_window": "take that back for order {order}: it arrived {days} days ago and our "
    "{window}-day return window has closed.",
    "why_amount": "ask for ${amount} for the {item} from order {order}, since damage refunds "
    "can't go above the item price of ${price}.",
    "status_pending": "it hasn't shipped to you yet (still pending)",
    "status_processed": "it has been processed by the warehouse already",
    "status_delivered": "it has been delivered to you already",
    "status_cancelled": "it was cancelled earlier",
    "propose_default_address": "Here's the plan: your account's default address becomes "
    "{address}. OK to go ahead?",
    "propose_order_address": "Here's the plan: order {order}, the one with {names}, will ship to "
    "a new address, {address}. OK to go ahead?",
    "order_named": "{order} (the one with {names})",
    "propose_cancel": "Here's the plan: order {order} ({names}) gets cancelled because it was "
    "{reason}, and ${total} returns to the card you paid with. OK to go ahead?",
    "propose_return": "Here's the plan: you return {items} from order {order}, and ${total} "
    "is refunded to {where} ({method}). OK to go ahead?",
    "propose_exchange": "Here's the plan: on order {order} we exchange your {item} ({option}, item "
    "{item_id}) for the {new} version (item {new_id}); the ${diff} price difference goes "
    "through {where} ({method}). OK to go ahead?",
    "propose_damaged": "Here's the plan: a ${amount} refund request goes in for the damaged "
    "{item} (item {item_id}) from order {order}; a human approver signs it off. OK to go ahead?",
    "item_listed": "the {name} in {option} (item {item_id})",
    "gift_card": "the gift card on your account",
    "original_payment": "the card you paid with",
    "reason_no longer needed": "no longer needed",
    "reason_ordered by mistake": "ordered by mistake",
    "done_cancel_pending_order": "All set, order {order_id} is cancelled and ${refunded} is on "
    "its way back to you.",
    "done_return_delivered_items": "All set, the return for order {order_id} is registered; "
    "you'll get ${refund} back ({refund_to}).",
    "done_exchange_delivered_items": "All set, the exchange on order {order_id} is registered "
    "(difference: ${price_difference}).",
    "done_modify_order_address": "All set, order {order_id} now ships to {shipping_address}.",
    "done_modify_default_address": "All set, your default address is {default_address} from "
    "now on.",
    "done_request_refund": "All set, your ${amount} refund request for order {order_id} is "
    "filed and will be reviewed by a person.",
    "proceed": "{summary}",
    "reassure": "No problem, nothing happens until you agree. {summary}",
}

_EN_3: dict[str, str] = {
    "ask_identity": "To get started I'll need to look up your account. Please share either the "
    "email address you registered with, or your name together with your postal code.",
    "explain_identity": "We only discuss an account with its owner, so confirming who you are "
    "keeps your purchases and payments safe.",
    "account_not_found": "Those details ({tried}) didn't bring up any account.",
    "ask_order": "Which order is this about? Please send me its number.",
    "ask_reason": "Could you tell me the reason: did you order it by mistake, or is it no "
    "longer needed?",
    "ask_refund_to": "How would you like to be refunded: to the original payment method, or as "
    "gift card credit?",
    "ask_items": "Which products in order {order} should I include? On it: {names}.",
    "ask_option": "Which variant would you prefer? You can choose from {options}.",
    "ask_address": "Where should it go? I need the street, the city and the postal code.",
    "ask_amount": "Which amount should the damage refund be for?",
    "anything_else": "Is there something else you need today?",
    "how_can_i_help": "Hello! What brings you here today?",
    "order_not_found": "I'm not seeing any order numbered {order}.",
    "declined": "Understood, I've left it unchanged.",
    "refund_status": "Here's order {order}: the charge was ${paid} and refunds so far total "
    "${refunded}.",
    "transfer": "Let me connect you with a member of our staff. One moment please.",
    "write_failed": "Sorry, the system wouldn't let me do that: {error}",
    "refuse": "I'm afraid I cannot {why} Is there something else you need today?",
    "why_other_account": "act on order {order}; it is not on your account.",
    "why_address": "modify the delivery address for order {order} as {status}. Addresses can "
    "only be edited on pending orders.",
    "why_cancel": "cancel order {order} as {status}. Only pending orders may be cancelled.",
    "why_not_delivered": "process that for order {order} as {status}. Returns, exchanges and "
    "damage claims are for delivered items only.",
    "why_window": "accept a return for order {order}; it was delivered {days} days ago, which "
    "is past our {window}-day return window.",
    "why_amount": "file ${amount} for the {item} in order {order}. A damage refund cannot "
    "exceed the item's price, which is ${price}.",
    "status_pending": "it is pending and has not been delivered",
    "status_processed": "the warehouse has already processed it",
    "status_delivered": "it has already been delivered",
    "status_cancelled": "it has already been cancelled",
    "propose_default_address": "Just to double-check: I'm setting your default address to "
    "{address}. Is that correct, and may I go ahead?",
    "propose_order_address": "Just to double-check: I'm redirecting order {order} (containing "
    "{names}) to the address {address}. Is that correct, and may I go ahead?",
    "order_named": "{order} (containing {names})",
    "propose_cancel": "Just to double-check: I'm cancelling order {order} ({names}), reason "
    "{reason}; the ${total} goes back to the original payment method. Is that correct, and may "
    "I go ahead?",
    "propose_return": "Just to double-check: I'm returning {items} from order {order} with a "
    "refund of ${total} to {where} ({method}). Is that correct, and may I go ahead?",
    "propose_exchange": "Just to double-check: I'll exchange your {item} ({option}, item "
    "{item_id}) from order {order} for the {new} variant (item {new_id}), with the ${diff} "
    "difference handled through {where} ({method}). Is that correct, and may I go ahead?",
    "propose_damaged": "Just to double-check: I'm filing a ${amount} refund request for your "
    "damaged {item} (item {item_id}) from order {order}, which a human approver reviews. Is "
    "that correct, and may I go ahead?",
    "item_listed": "{name}, {option} (item {item_id})",
    "gift_card": "gift card credit",
    "original_payment": "the original payment method",
    "reason_no longer needed": "no longer needed",
    "reason_ordered by mistake": "ordered by mistake",
    "done_cancel_pending_order": "Your order {order_id} has been cancelled and ${refunded} "
    "will be refunded.",
    "done_return_delivered_items": "The return for order {order_id} has been submitted; a "
    "refund of ${refund} is going to {refund_to}.",
    "done_exchange_delivered_items": "The exchange for order {order_id} has been submitted "
    "(price difference ${price_difference}).",
    "done_modify_order_address": "Order {order_id} has been updated to ship to {shipping_address}.",
    "done_modify_default_address": "Your default address has been updated to {default_address}.",
    "done_request_refund": "I've submitted the ${amount} refund request for order {order_id}; "
    "a human approver will review it.",
    "proceed": "{summary}",
    "reassure": "Of course. Let me repeat it. {summary}",
}

_ZH: dict[str, str] = {
    "ask_identity": "在帮您处理之前，我需要先核实您的身份。请提供账户的邮箱，或者您的姓名和邮编。",
    "explain_identity": "核实身份是为了保护您的订单和资金安全，只有账户本人才能查看或修改。",
    "account_not_found": "没有找到与 {tried} 匹配的账户。",
    "ask_order": "请问订单号是多少？格式类似 #W1234567。",
    "ask_reason": "请问取消的原因是什么：不再需要，还是误下单？",
    "ask_refund_to": "退款是退回原支付方式，还是退到礼品卡？",
    "ask_items": "订单 {order} 里有：{names}。您指的是哪件商品？",
    "ask_option": "您想换成哪个款式？可选：{options}。",
    "ask_address": "请提供新地址（街道、城市、邮编）。",
    "ask_amount": "这件损坏的商品您希望退款多少？",
    "anything_else": "还有其他需要帮忙的吗？",
    "how_can_i_help": "您好，请问有什么可以帮您？",
    "order_not_found": "没有找到订单 {order}。",
    "declined": "好的，那我就不处理了。",
    "refund_status": "订单 {order}：已支付 ${paid}，目前已退款 ${refunded}。",
    "transfer": "正在为您转接人工客服，请稍候。",
    "write_failed": "抱歉，操作没有成功：{error}",
    "refuse": "抱歉，我无法{why}还有其他需要帮忙的吗？",
    "why_other_account": "处理订单 {order}：该订单属于其他账户。",
    "why_address": "修改订单 {order} 的地址：{status}，只有待处理的订单才能修改。",
    "why_cancel": "取消订单 {order}：{status}，只有待处理的订单才能取消。",
    "why_not_delivered": "为订单 {order} 办理：{status}，只有已送达的商品才能退货、换货或申请损坏退款。",
    "why_window": "为订单 {order} 办理退货：它在 {days} 天前送达，已超过 {window} 天的退货期。",
    "why_amount": "为订单 {order} 的 {item} 申请 ${amount}：损坏退款最多为商品价格 ${price}。",
    "status_pending": "订单还在待处理，尚未送达",
    "status_processed": "订单已经处理",
    "status_delivered": "订单已经送达",
    "status_cancelled": "订单已经取消",
    "propose_default_address": "跟您确认一下：我将把您的默认地址修改为 {address}。可以吗？",
    "propose_order_address": "跟您确认一下：我将把订单 {order}（{names}）的收货地址修改为 {address}。可以吗？",
    "order_named": "{order}（{names}）",
    "propose_cancel": "跟您确认一下：我将取消订单 {order}（{names}），原因：{reason}。"
    "${total} 将退回原支付方式。可以吗？",
    "propose_return": "跟您确认一下：我将为订单 {order} 办理退货：{items}，退款 ${total} 到{where}（{method}）。"
    "可以吗？",
    "propose_exchange": "跟您确认一下：我将把订单 {order} 中的 {item}（{option}，商品 {item_id}）"
    "更换成 {new} 款（商品 {new_id}），差价 ${diff} 通过{where}（{method}）结算。可以吗？",
    "propose_damaged": "跟您确认一下：我将为订单 {order} 中损坏的 {item}（商品 {item_id}）提交 "
    "${amount} 的退款申请，需要人工审批。可以吗？",
    "item_listed": "{name}（{option}，商品 {item_id}）",
    "gift_card": "礼品卡",
    "original_payment": "原支付方式",
    "reason_no longer needed": "不再需要（no longer needed）",
    "reason_ordered by mistake": "误下单（ordered by mistake）",
    "done_cancel_pending_order": "订单 {order_id} 已取消，${refunded} 将退还给您。",
    "done_return_delivered_items": "订单 {order_id} 的退货申请已提交，${refund} 将退到 {refund_to}。",
    "done_exchange_delivered_items": "订单 {order_id} 的换货申请已提交（差价 ${price_difference}）。",
    "done_modify_order_address": "订单 {order_id} 的收货地址已修改为 {shipping_address}。",
    "done_modify_default_address": "您的默认地址已修改为 {default_address}。",
    "done_request_refund": "订单 {order_id} 的 ${amount} 退款申请已提交，等待人工审批。",
    "proceed": "{summary}",
    "reassure": "明白您的顾虑，在您同意之前不会操作。{summary}",
}

PHRASINGS: Final[dict[str, Table]] = {
    "en": MappingProxyType(_EN),
    "en-2": MappingProxyType(_EN_2),
    "en-3": MappingProxyType(_EN_3),
    "zh": MappingProxyType(_ZH),
}
REFERENCE = "en"
