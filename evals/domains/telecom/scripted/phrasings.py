"""Every sentence the telecom reference agent says, in independent wordings: the original
("en") and rewordings ("en-2", "zh") with the same facts, ids and amounts. An agent param
selects one (`params={"phrasing": "en-2"}`); without one the agent answers in the customer's
language.

Each wording keeps what the policy makes the agent say (the refusal's reason in the policy's
words, the amounts, the PUK and activation codes) and what the guard checks in a summary (the
action's word and the values written), and names the phone's screens and steps as the phone
does ("status bar", "network settings", "turn on data roaming"...)."""

from __future__ import annotations

from evals.domains.telecom.scripted.vocab import TRANSFER

EN = {
    "ask_identity": "Before I can help, I need to verify your identity. Could you give me the "
    "email address of your account, or your phone number and date of birth?",
    "explain_identity": "I need to verify who you are before I can look at or change anything "
    "on your account; that protects your line and your money.",
    "not_found_email": "I couldn't find a customer with the email {email}.",
    "not_found_phone": "I couldn't find a customer with phone number {phone} and date of birth "
    "{dob}.",
    "how_can_i_help": "How can I help you today?",
    "anything_else": "Is there anything else I can help you with?",
    "proceed": "{summary} Shall I proceed? (yes/no)",
    "reassure": "I understand. {summary} Shall I proceed? (yes/no)",
    "declined": "Okay, I won't do that.",
    "write_failed": "I'm sorry, that did not go through: {error}",
    "propose_pay": "To confirm: I will pay bill {bill_id} ({period}) in full: {amount} "
    "{currency}, with your card ending {card}.",
    "propose_resume": "To confirm: I will resume line {line_id} ({phone}).",
    "propose_topup": "To confirm: I will add a {gb} GB data top-up to line {line_id} for {price} "
    "{currency}, charged on your next bill.",
    "propose_plan": "To confirm: I will change line {line_id} to the {plan} plan ({plan_id}) at "
    "{price} {currency} a month.",
    "propose_roaming": "To confirm: I will enable roaming on line {line_id}.",
    "propose_esim": "To confirm: I will replace the SIM of line {line_id} with an eSIM; your old "
    "SIM stops working at once.",
    "done_pay_bill": "Done: bill {bill_id} is paid: {paid} {currency}, with your {card}.",
    "done_resume_line": "Done: line {line_id} is active again.",
    "done_add_data_topup": "Done: {added} was added to line {line_id}; {charged_on_next_bill} "
    "{currency} is charged on your next bill.",
    "done_change_plan": "Done: line {line_id} is now on the {plan} plan, {monthly_price} "
    "{currency} a month.",
    "done_enable_roaming": "Done: roaming is enabled on line {line_id}.",
    "done_issue_esim": "Done: your eSIM is ready. Your eSIM activation code is {activation_code}.",
    "done_send_puk_code": "Your PUK code is {puk}.",
    "done_push_network_settings": "I have sent the network settings to your phone as a "
    "configuration message.",
    "refuse_pay_first": "I'm sorry, I can't resume line {line_id}: overdue bills must be paid "
    "in full first, and bill {bill_id} ({amount} {currency}) is overdue.",
    "refuse_basic": "I'm sorry, I can't enable roaming on line {line_id}: roaming is not "
    "available on the Basic plan.",
    "refuse_sim_recent": "I'm sorry, I can't replace the SIM of line {line_id}: a SIM can be "
    "replaced once in 30 days, and yours was changed {days} days ago.",
    "transfer_fraud": "Line {line_id} is suspended for a fraud review, which only our fraud "
    "desk can lift; a colleague there will help you. " + TRANSFER,
    "transfer_dispute": "I understand you dispute this bill; a colleague will review it. "
    + TRANSFER,
    "ask_checks": "Please check your phone and tell me what you see: {what}.",
    "check_status_bar": "the status bar",
    "check_network_settings": "the network settings",
    "check_sim": "the SIM screen",
    "check_app": "the {app} app's mobile-data permission",
    "and": " and ",
    "do_steps": "Please do this on your phone: {steps}. Then check {what} and tell me what you "
    "see.",
    "then": ", then ",
    "step_airplane": "turn off airplane mode",
    "step_data": "turn on mobile data",
    "step_roaming": "turn on data roaming",
    "step_install": "install the carrier settings from the configuration message",
    "step_puk": "unlock the SIM with PUK code {puk} and choose your new PIN",
    "step_esim": "add the eSIM with activation code {code}",
    "step_app": "allow the {app} app to use mobile data",
    "step_restart": "restart your phone",
    "works_again": "Great, your phone works again.",
    "give_up": "I'm sorry, I could not get your phone working from here.",
    "already_plan": "Your line is already on the {plan} plan.",
    "nothing_to_pay": "You have no unpaid bill.",
    "tell_me_more": "Could you tell me what is wrong with your phone or your account?",
}

EN_2 = {
    **EN,
    "ask_identity": "To open your account I first have to confirm it's you. Please send me "
    "either the email you registered with, or your phone number together with your birth date.",
    "explain_identity": "For your security I may only open or change an account once I know "
    "who I'm talking to.",
    "how_can_i_help": "What can I do for you?",
    "anything_else": "Can I help with something else?",
    "proceed": "{summary} Would you like me to go ahead?",
    "reassure": "No problem. {summary} Would you like me to go ahead?",
    "declined": "All right, I'll leave it as it is.",
    "propose_pay": "Just to check: I'd pay bill {bill_id} ({period}) in full, {amount} "
    "{currency}, from your card ending {card}.",
    "propose_resume": "Just to check: I'd resume line {line_id} ({phone}) now.",
    "propose_topup": "Just to check: I'd add a {gb} GB data top-up to line {line_id}; it costs "
    "{price} {currency} on your next bill.",
    "propose_plan": "Just to check: I'd move line {line_id} to the {plan} plan ({plan_id}) for "
    "{price} {currency} per month.",
    "propose_roaming": "Just to check: I'd turn on roaming for line {line_id} on your account.",
    "propose_esim": "Just to check: I'd replace the SIM of line {line_id} with an eSIM, and the "
    "old SIM would stop working straight away.",
    "ask_checks": "Could you look at your phone and tell me what it shows: {what}?",
    "do_steps": "Next, please do this on your phone: {steps}. After that, look at {what} and "
    "let me know what it shows.",
    "works_again": "Perfect, your phone works again.",
}

ZH = {
    "ask_identity": "在帮您办理之前，我需要先验证您的身份。请提供您账户的电子邮箱，或您的电话号码和出生日期。",
    "explain_identity": "在查看或更改您账户上的任何内容之前，我需要先确认您的身份，这是为了保护您的线路和资金安全。",
    "not_found_email": "没有找到电子邮箱为 {email} 的客户。",
    "not_found_phone": "没有找到电话号码为 {phone}、出生日期为 {dob} 的客户。",
    "how_can_i_help": "您好，请问有什么可以帮您？",
    "anything_else": "还有其他需要帮忙的吗？",
    "proceed": "{summary}请问是否继续？（是/否）",
    "reassure": "我理解。{summary}请问是否继续？（是/否）",
    "declined": "好的，我不办理这一项。",
    "write_failed": "抱歉，没有办成：{error}",
    "propose_pay": "确认一下：我将用您尾号 {card} 的银行卡全额支付账单 {bill_id}（{period}）：{amount} {currency}。",
    "propose_resume": "确认一下：我将恢复线路 {line_id}（{phone}）。",
    "propose_topup": "确认一下：我将为线路 {line_id} 充值 {gb} GB 流量（top-up），费用 {price} {currency}，计入下一期账单。",
    "propose_plan": "确认一下：我将把线路 {line_id} 更换为 {plan} 套餐（{plan_id}），每月 {price} {currency}。",
    "propose_roaming": "确认一下：我将为线路 {line_id} 开通漫游。",
    "propose_esim": "确认一下：我将把线路 {line_id} 的 SIM 卡更换为 eSIM；旧 SIM 卡会立即停用。",
    "done_pay_bill": "已办好：账单 {bill_id} 已支付 {paid} {currency}（{card}）。",
    "done_resume_line": "已办好：线路 {line_id} 已恢复使用。",
    "done_add_data_topup": "已办好：线路 {line_id} 已增加 {added} 流量；{charged_on_next_bill} {currency} 计入下一期账单。",
    "done_change_plan": "已办好：线路 {line_id} 已更换为 {plan} 套餐，每月 {monthly_price} {currency}。",
    "done_enable_roaming": "已办好：线路 {line_id} 已开通漫游。",
    "done_issue_esim": "已办好：您的 eSIM 已准备好。eSIM 激活码是 {activation_code}。",
    "done_send_puk_code": "您的 PUK 码是 {puk}。",
    "done_push_network_settings": "我已经把网络设置以配置短信的形式发送到您的手机。",
    "refuse_pay_first": "抱歉，我无法恢复线路 {line_id}：逾期账单必须先全额支付，而账单 {bill_id}（{amount} {currency}）已逾期。",
    "refuse_basic": "抱歉，我无法为线路 {line_id} 开通漫游：基础套餐不提供漫游。",
    "refuse_sim_recent": "抱歉，我无法更换线路 {line_id} 的 SIM 卡：SIM 卡 30 天内只能更换一次，而您的 SIM 卡 {days} 天前刚更换过。",
    "transfer_fraud": "线路 {line_id} 因欺诈审查被停机，只有反欺诈部门可以解除；那边的同事会帮您。正在为您转接人工客服，请稍候。",
    "transfer_dispute": "我理解您对这张账单有异议，同事会为您复核。正在为您转接人工客服，请稍候。",
    "ask_checks": "请检查您的手机，告诉我显示的内容：{what}。",
    "check_status_bar": "状态栏",
    "check_network_settings": "网络设置",
    "check_sim": "SIM 卡页面",
    "check_app": "{app} 应用的移动数据权限",
    "and": "、",
    "do_steps": "请在手机上这样操作：{steps}。然后查看{what}，告诉我显示的内容。",
    "then": "，然后",
    "step_airplane": "关闭飞行模式",
    "step_data": "打开移动数据",
    "step_roaming": "打开数据漫游",
    "step_install": "安装运营商设置（配置短信中的设置）",
    "step_puk": "用 PUK 码 {puk} 解锁 SIM 卡并设置新的 PIN 码",
    "step_esim": "用激活码 {code} 添加 eSIM",
    "step_app": "允许 {app} 应用使用移动数据",
    "step_restart": "重启手机",
    "works_again": "太好了，您的手机现在可以正常使用了。",
    "give_up": "抱歉，我无法在这里让您的手机正常使用。",
    "already_plan": "您的线路已经是 {plan} 套餐。",
    "nothing_to_pay": "您没有未支付的账单。",
    "tell_me_more": "请问您的手机或账户遇到了什么问题？",
}

PHRASINGS: dict[str, dict[str, str]] = {"en": EN, "en-2": EN_2, "zh": ZH}
