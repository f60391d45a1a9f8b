"""The cue lexicon, English and Chinese: what marks each act, which words name an action, a
slot, an identity field or something on the customer's own device. Every pattern reads a
clause's cue text (lower-cased, contractions expanded: "can't" is "can not", "I'm" is "i am")."""

from __future__ import annotations

import re

from evals.engine.understanding.utterances.gate import Gate, GatedNames


def _rx(*alternatives: str) -> Gate:
    return Gate(re.compile("|".join(f"(?:{a})" for a in alternatives)))


def _named(pairs: list[tuple[str, str]]) -> GatedNames:
    """One alternation for many names (the first listed wins at a position)."""
    return GatedNames(pairs)


# -- actions -------------------------------------------------------------------------------

_PARTICIPLES = (
    r"cancell?ed|returned|exchanged|swapped|refunded|changed|updated|modified|frozen|paused|"
    r"unfrozen|reactivated|waived|transferred|rescheduled|rebooked|moved|booked|unsubscribed|renewed|reset|applied|"
    r"created|marked|submitted|sent|issued|processed|completed|credited|removed|added|"
    r"corrected|set up|put through|taken care of|terminated|suspended|upgraded|downgraded|"
    r"switched|approved|scheduled"
)
_HANDOFF = (
    r"\btransfer\w*\s+(?:you|this|it|your (?:call|chat|case|conversation|request)|the (?:chat|conversation|call))\b"
    r"|\b(?:being|been|be) transferred to\b|\btransferring to\b|\bconnect\w*\s+you\s+(?:to|with)\b|\bescalat\w*"
    r"|\bhand\w*\s+(?:you|this|it|the conversation|the chat|your case)\s+(?:over|off)\b|\bhanding (?:the conversation|this|you|it) over"
    r"|\bpass\w*\s+(?:this|it|your case|along|on)\b|\b(?:human|live) (?:agent|colleague|person|representative)"
    r"|\b(?:a|one of our) (?:member of (?:our|the) (?:\w+ )?team|colleague|specialist|human|supervisor|manager) will\b"
    r"|\blet me get someone\b|\bsomeone from our\b|\b(?:go|goes) to our (?:\w+ )?(?:specialists|team)"
    r"|转接|转人工|人工客服|人工处理|升级给|升级至?(?:专员|主管|人工)|转交|转给|交给.{0,8}(?:处理|跟进|审核)"
    r"|(?:专员|同事|主管|客服经理)(?:会|将|处理|审核|跟进|联系)"
)
HANDOFF = Gate(re.compile(_HANDOFF))
ACTIONS = _named(
    [
        ("handoff", _HANDOFF),
        (
            "change_address",
            r"\b(?:chang|updat|modif|edit|correct|amend|set|switch|mov)\w*\s+(?:\S+\s+){0,6}?(?:shipping |delivery |default |billing |mailing |home |new )?(?<!e-mail )(?<!email )address"
            r"|(?<!e-mail )(?<!email )\baddress(?:es)?\s+(?:\S+\s+){0,4}?(?:becomes|will be|is now|to be|updated|changed|modified)"
            r"|地址.{0,6}?(?:改|更新|修改|更改|变更|换)|(?:改|更新|修改|更改|变更|换).{0,10}?地址",
        ),
        (
            "change_plan",
            r"\b(?:switch|chang|mov)\w*\s+(?:\S+\s+){0,7}?(?:plan|tier|membership level)\b|\bplan change\b"
            r"|\bon the \w+ (?:plan|tier) (?:as of|from|starting)|\bplan (?:is|has been) now\b"
            r"|(?:更换|变更|修改|改|换|调整)\w{0,3}套餐|套餐(?:变更|更换|调整)|(?:换|改)成.{0,4}(?:套餐|版)",
        ),
        (
            "unfreeze",
            r"\bunfreez\w*|\bunfrozen\b|\breactivat\w*|\bresum(?:e|ed|ing)\b|解冻|重新激活|恢复(?:会员|使用|正常)",
        ),
        ("freeze", r"\bfreez\w*|\bfrozen\b|\bpaus(?:e|ed|ing)\b|\bsuspend\w*|(?<!解)冻结|暂停"),
        ("cancel", r"\bcancel\w*\b(?! (?:fee|charge))|\bterminat\w*\b(?! fee)|取消|解约|退订|注销"),
        (
            "return",
            r"\breturn(?:s|ed|ing)?\b|\bsend (?:it|them|\w+ \w+) back\b|\bsent back\b|退货|退回商品|寄回|退掉",
        ),
        (
            "exchange",
            r"\bexchang\w*|\bswap\w*|\breplace\b|\breplacing\b|换货|更换|调换|换新|换成|换个|没法换|换(?=.{0,4}(?:码|颜色|色|款|尺码|型号))",
        ),
        ("upgrade", r"\bupgrad\w*|升级"),
        ("downgrade", r"\bdowngrad\w*|降级"),
        ("waive", r"\bwaiv\w*|\bwrite off\b|免除|免掉|减免|豁免|免收"),
        ("transfer", r"\btransfer\w*|转让|转移"),
        (
            "reschedule",
            r"\breschedul\w*|\brebook\w*|\bmov(?:e|ed|ing)\s+(?:it|your|the|this)?\s*(?:booking|appointment|reservation|visit|slot|flight)"
            r"|\b(?:moved|move) to (?=(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|mon|tue|wed|thu|fri|sat|sun|tomorrow|today|next|\d))"
            r"|改期|改签|改到|挪到|调整(?:时间|预约)",
        ),
        (
            "book",
            r"\bbook(?:ed|ing)?\b(?!\s*(?:ref|reference|number|code|id)\b)|预约(?!号|已)|预订(?!号)|订(?:座|位)",
        ),
        ("renew", r"\brenew\w*|(?<!手)续费|续订|续期|续约|续签"),
        ("reset", r"\breset\w*|重置"),
        (
            "refund",
            r"\brefund\w*|\bmoney back\b|\breimburs\w*|退款|退钱|退费|返还|原路(?:退回|返回)|退(?:回|到)(?=.{0,8}(?:卡|支付|账户|原路))|(?:费|钱|款).{0,4}(?:没法|不能|无法)退",
        ),
        ("apply", r"\bappl(?:y|ied|ies|ying)\b|申请(?!退)"),
        (
            "create",
            r"\bcreat\w*|\bset up\b|\bopen (?:a|an) (?:new )?(?:ticket|task|case|account)\b|\badd (?:a |an )?(?:new )?task|创建|新建|建一个|添加",
        ),
        (
            "update",
            r"\bupdat\w*|\bmark(?:ed|ing|s)?\b|\bmodif\w*|\bchang\w*|\bedit\w*|标记|更新|修改|设置为|设为|改为|改成",
        ),
        ("send", r"\bsen[dt]\b|\bsending\b|发送|发到|寄出"),
        ("submit", r"\bsubmit\w*|提交"),
    ]
)
# Generic actions name *how* a specific one is carried out ("submit a refund request", "apply
# the freeze", "the refund goes back to your card" after a cancellation): kept only when no
# specific action is named with them. Listed in the order of preference among themselves.
GENERIC_ACTIONS = ("refund", "create", "apply", "update", "send", "submit")
# A more precise action replaces a vaguer one of its family.
SUPERSEDES = {"upgrade": ("change_plan",), "downgrade": ("change_plan",), "reschedule": ("book",)}

# -- what marks each act ---------------------------------------------------------------------

GO_AHEAD_STRONG = _rx(
    r"\b(?:shall|should|may|can|could)(?: not)? (?:i|we)\b(?! (?:get|have|ask|grab|see|know|take|help|find))",
    r"\b(?:do|would) you (?:want|like) (?:that|this|it)\s*\?|\b(?:would|do|did) you (?:\w+ )?(?:like|want) (?:me )?to\b|\bwant me to\b|\byou (?:would like|want) me to\b|\bconfirm (?:that )?you (?:would like|want)\b",
    r"\bdo i have your (?:ok|okay|go-ahead|go ahead|approval|permission|consent|confirmation)\b",
    r"\b(?:ok|okay|alright|all right|good|fine|ready) (?:for me )?to (?:go ahead|proceed|continue|go|submit|do (?:it|that|this))\b",
    r"\b(?:go ahead|proceed|continue)\s*\?|\bshall i\s*\?|\bjust confirm\b|\bconfirm and i will\b|\b(?:once|if) you confirm\b|\bwould it be (?:ok|okay|alright|all right|fine) (?:if|for me to)\b|\b(?:would|does) (?:that|this) (?:help|work for you)\b|\b(?:yes or no|yes/no)\b|\breply (?:yes|y)\b|\bsay yes\b",
    r"^(?:please )?confirm\s*[?.!:]?$|\bplease confirm\s*:|\bcan you confirm (?:that )?(?:you want|you would like|this|that|the above)\b",
    r"\blet me know if (?:i should|you would like me to|you want me to|i can go ahead|that works|this works|you are happy)",
    r"\bjust say the word\b|\bif (?:that|this|it) (?:works|sounds good|is ok|is okay|is fine|is alright|suits you)",
    r"\bif you (?:would like|want|prefer|agree|are happy)\b|\bready when you are\b|\bgood to go\s*\?|\ball good\s*\?",
    r"\bsounds? good\s*\?|^(?:confirm|proceed|go ahead)\s*\?|\bdo you confirm\b|\bconfirm\s*\?$|,\s*(?:ok|okay|alright|all right)\s*\?$",
    r"\bare you (?:happy|ok|okay|fine|comfortable|good) (?:for|with|to|if)\b",
    r"确认(?:办理|执行|提交|操作|继续)?吗|是否(?:继续|确认|办理|执行|提交|同意|需要(?:我|帮)|要)|同意吗|您同意|您确定|确定要|要不要",
    r"需要我.{0,16}吗|要我.{0,16}吗|要.{0,12}吗|我就(?:提交|执行|办理|帮您)|确认(?:无误)?的话",
    r"如果您同意|没问题的话|请回复(?:是|确认|好)|都办理吗|可以(?:执行|办理)吗|^请(?:您)?确认$",
)
GO_AHEAD_WEAK = _rx(
    r"\b(?:is|does) (?:that|this|it|everything) (?:ok|okay|alright|all right|correct|right|fine|acceptable|accurate|work|sound (?:good|right|ok|okay)|look (?:good|right|correct|ok))\b",
    r"\b(?:does|would) (?:that|this) work\b|^(?:correct|right|ok|okay|alright|agreed|all good|good)\s*\?$|\bsounds? (?:good|ok|okay|right|fine|alright)\s*\?",
    r"\bare you sure\b|\bam i right\b|\bright\s*\?$|\bcorrect\s*\?$|\bis that what you (?:want|meant|would like)\b|\bdo you agree\b",
    r"(?:这样)?(?:可以|好|行|对|是)吗|对吧|没错吧|是吧|(?:这样|您看)(?:可以|行)吗|可以不",
)
OR_NOT = re.compile(r"\bor not\b|还是不")
CLOSING = _rx(
    r"(?<!before )\b(?:anything|nothing) (?:else|more)\b|\bsomething else (?:i|we) can\b|\bis there something else\b",
    r"\bany other (?:questions|thing|issues|concerns|requests)\b|\bother questions\b",
    r"\bhave a (?:great|good|lovely|nice|wonderful|pleasant) (?:day|evening|night|weekend|one|afternoon|morning)\b",
    r"\btake care\b(?! of)|\bgoodbye\b|\bbye\b|\bthanks for (?:chatting|contacting)|\bif anything else comes up\b",
    r"\bfeel free to (?:reach out|contact|come back)|\bare we all done\b|\bwill that be all\b|\bis that all\b",
    r"\b(?:glad|happy) (?:i|we) could help\b|\bhappy to have helped\b",
    r"还有(?:其他|别的|什么)(?:的)?(?:问题|需要|事|要|可以|能|需|帮|吗)|其他(?:问题|需要)|别的问题|祝您|再见|不打扰您|随时(?:找我|联系)",
    r"还需要.{0,4}(?:帮助|帮忙)|没有别的",
)
GREETING = _rx(
    r"\bhow (?:can|may|could|might) (?:i|we) (?:help|assist)|\bwhat can (?:i|we) (?:do|help)|\bwhat (?:do|can) you need(?: help)? with",
    r"\bwhat do you need help with|\bwhat brings you|\bwhat (?:is|seems to be) (?:going on|the (?:problem|issue|trouble))",
    r"\bwhat would you like (?:to do|help with|me to do|to take care of)|\btell me what you (?:would like|need|want)",
    r"\bwhat (?:is|are) the next step|\bhow can i be of (?:help|assistance)|^welcome (?:to|back)\b|^welcome\W*$|\bwhat do you want to do",
    r"有什么(?:可以|能|需要)?(?:帮|为)(?:您|你|到您)|请问有什么|想办理什么|什么业务|^欢迎(?:咨询|光临|来到|您)|遇到了什么问题|想对.{0,16}做什么",
    r"需要什么帮助|想(?:要)?(?:咨询|了解)什么|请问(?:您)?是?想",
)
SALUTATION = re.compile(
    r"^(?:hi|hello|hey|hiya|greetings|good (?:morning|afternoon|evening))\b|^(?:您好|你好|嗨|哈喽|早上好|下午好|晚上好)"
)
DONE = _rx(
    r"^done\b|(?<!as )(?<!be )\bdone\s*[:!.]|\b(?:it|that|this|all|everything) is (?:done|complete|completed|processed|set)\b",
    r"\ball (?:set|done)\b|\bsuccess(?:fully)?\b|\bwent through\b|\bhas gone through\b|\b(?:is|are) (?:all )?(?:done|complete|completed)\b",
    rf"\b(?:has|have) been (?:\w+ly )?(?:{_PARTICIPLES})\b|\b(?:was|were|is|are) (?:now |successfully |just |also |all |already )?(?:{_PARTICIPLES})\b",
    rf"\b(?:i|we) (?:have |had |just |already |went ahead and |now )*(?:{_PARTICIPLES}|made the change|gone ahead)\b",
    rf"\b(?:is|are) now\b|^(?:{_PARTICIPLES})\b|\b(?:{_PARTICIPLES})\s*[.!✅✔]*$",
    r"已(?:经)?(?:为您|帮您|给您|替您|成功)?.{0,6}?(?:取消|退货|退款|换货|修改|更改|更新|变更|提交|处理|办理|完成|冻结|解冻|升级|降级|免除|创建|新建|标记|改到|改签|改好|改为|改成|发送|发到|退回|返回|续费|重置|转让)",
    r"(?:取消|退货|退款|换货|修改|更新|变更|提交|办理|冻结|解冻|升级|降级|免除|创建)(?:成功|完成|完毕|好了)|办好了|搞定|成功[！!]?",
    r"^(?:done|completed)\W*$",
)
NOT_DONE = _rx(
    r"\b(?:not|never|no longer)\b.{0,20}(?:been|done|set|through|cancell?ed|processed)|\bso far\b|\bto date\b",
    r"^(?:if|once|when|after|as soon as|until|before|unless)\b",
    rf"\b(?:can|could|will|would|should|may|might|must|to) be (?:\w+ly )?(?:{_PARTICIPLES})\b",
    r"\b(?:make sure|ensure|check (?:that|whether|if)|see (?:if|whether))\b",
    r"^(?!.*已(?:经)?(?:帮您|为您)?(?:标记|设))(?:.*(?:标记为|设为|改为|改成)已)|\b(?:is|are) being\b|目前已|累计|至今|尚未|还没",
)
REFUSE = _rx(
    r"\b(?:i|we)(?: really| unfortunately| just| still| simply| sadly| currently| now)? (?:can not|could not|am not able to|are not able to|am unable to|are unable to|will not be able to|would not be able to|am not allowed to|are not allowed to|am not permitted to|are not permitted to|do not have the ability to|have no way to|am not authori[sz]ed to|do not (?:offer|allow|support|accept))\b(?! (?:find|locate|see|spot|wait))",
    r"\b(?:is|are|was|were) not (?:possible|an option|allowed|permitted|eligible|available|refundable|returnable|cancellable|something (?:i|we) (?:am|are|can))\b",
    r"\bnot (?:possible|eligible|allowed|permitted)\b|\bcan not be (?:\w+ed|\w+en|done|changed|made)\b|\b(?:does|do) not (?:allow|permit|qualify|cover|let)\b",
    r"\bno longer (?:possible|eligible|available)\b|\boutside (?:of )?what (?:i|we) (?:am|are|can)\b|\bis not something\b",
    r"\bfailed\b|\bdid not go through\b|\b(?:returned|gave|threw|hit|ran into) an error\b|\bwas unsuccessful\b|\bcould not be (?:completed|processed|done)\b|\bwas (?:declined|rejected)\b",
    r"\b(?:you|they) (?:can not|are not able to|are not eligible|do not qualify)\b",
    r"\b(?:sorry|afraid|unfortunately|sadly|regret)\b.{0,80}\bonly\b",
    r"无法|不能|不可以|没办法|没法|做不到|办不到|不支持|不符合|不允许|不可(?!以)|不予|恐怕不行|不了(?!解)|失败|出错|报错|没有成功|未成功|暂时不能",
)
NOT_REFUSE = _rx(
    r"\b(?:if|unless|when|once) (?:you|i|we|it)\b.{0,30}\b(?:can not|could not|are not able|unable)",
    r"\b(?:until|unless|without)\b",
    r"能不能|可不可以|是不是|行不行|有没有",
)
NOT_FOUND = _rx(
    r"\b(?:i|we)(?: really| just| still| unfortunately)? (?:can not|could not|was unable to|were unable to|am unable to|am not able to|did not|do not) (?:find|locate|see|spot|match)\b",
    r"\b(?:there is|there are|there was|i see|we have|i have|i found) (?:no|not any) (?:\w+ ){0,2}?(?:order|account|invoice|booking|record|reservation|member|membership|customer|transaction)s?\b",
    r"\bno (?:order|account|member|booking|invoice|record|charge|reservation|membership|customer|match)(?:es|s)? (?:matches|match|found|shows?|showing|exists?|under|with|for|on)\b",
    r"\bthere (?:does|do|did) not (?:seem|appear) to be (?:any|an?)\b|\b(?:does|do) not (?:seem|appear) to (?:exist|be on file)\b|\b(?:does|do|did) not match\b|\b(?:is|was|were|are) not found\b|\bcould not be (?:found|located)\b|\bdoes not exist\b",
    r"\bnot (?:on file|in our system|in (?:the|our) records)\b|\bnothing (?:on file|under|matches)\b|\bno record of\b|\bnot finding\b|\bi am not seeing\b",
    r"(?:查|找|看)不到|没(?:有)?(?:查|找|看)到|未(?:能)?(?:查|找)到|没有找到|不存在|查无|对不上|匹配不上|(?:系统|账户)(?:里|中|下)?没有",
    r"没有(?:这个|该|此)?(?:订单|账户|发票|记录|预订)",
)
NOT_FOUND_WHAT = _named(
    [
        ("order_id", r"\border|订单"),
        ("membership_id", r"\bmembership\b"),
        ("account", r"\baccount|\bprofile|\bcustomer|\bmember\b|账户|账号|会员"),
        ("invoice_id", r"\binvoice|发票"),
        ("booking_id", r"\bbooking|\breservation|\breference|预订|预约|记录"),
        ("charge", r"\bcharge|\bfee\b|\btransaction|\bpayment|扣款|费用|收费|款项"),
        ("item", r"\bitem|\bproduct|商品"),
    ]
)
# -- identity ----------------------------------------------------------------------------------

IDENTITY_CUE = _rx(
    r"\bverif(?:y|ication)\b|\bidentity\b|\bidentif(?:y|ying|ication)\b|\bauthenticat\w*",
    r"\bwho (?:i am|am i) (?:speaking|talking|chatting) (?:with|to)\b|\bwho you are\b|\baccount (?:holder|owner)\b",
    r"\byou own (?:the|this) account\b|\bsecurity (?:check|step|question)\b|\b(?:look up|find|locate|pull up|access) your (?:account|profile)\b",
    r"\bon (?:the|your) account\b|\bon file\b|\bregistered\b|\bsigned up\b|\b(?:linked|tied|associated) (?:to|with)\b",
    r"身份|本人|核实|验证|注册时|绑定|账户上的|账户邮箱",
)
IDENTITY_NEED = _rx(
    r"\b(?:need|have|must|got) to (?:verify|confirm|check|authenticate|validate) (?:your identity|who you are|it is you|you own|that you are|your account|you)\b",
    r"\b(?:verify|confirm|check) your identity\b|\bidentity (?:check|verification)\b|\bverification (?:needed|required)\b",
    r"\bmake sure (?:i am|we are) (?:talking|speaking) (?:to|with)\b|\bwho am i speaking with\b|\bstart by identifying\b|\bcheck who you are\b",
    r"(?:核实|验证|确认)(?:一下)?(?:您的)?身份|身份验证|身份核实|确认是账户本人|验证身份",
)
IDENTITY_DONE = _rx(
    r"\b(?:you are|you have been|identity (?:is|has been)) (?:now )?(?:verified|confirmed)\b|已核实|已验证|验证通过|核实通过"
)
FIELDS = _named(
    [
        ("card_last4", r"\blast (?:four|4) digits\b|卡号后四位|后四位"),
        (
            "member_id",
            r"\bmember(?:ship)? (?:number|id|no|card)\b|\bmember ?id\b|会员(?:号|编号|卡号)",
        ),
        ("dob", r"\bdate of birth\b|\bbirth ?date\b|\bbirthday\b|\bdob\b|\bborn\b|出生日期|生日"),
        (
            "phone",
            r"\b(?:phone|mobile|cell|telephone|contact) number\b|\bmobile\b(?! data| network| app)|\btelephone\b|手机号码?|电话号码?",
        ),
        (
            "email",
            r"(?<!confirmation )(?<!this )(?<!that )(?<!same )(?<!reset )(?<!an )(?<!by )(?<!via )\be-?mail\b(?! (?:us|me)\b)(?! you (?:within|shortly|soon|back|a |the |when|once|in ))"
            r"|(?<!这个)(?<!该)(?<!确认)邮箱|电子邮件|(?<!确认)邮件地址",
        ),
        ("name", r"(?<!task )(?<!product )(?<!item )(?<!user )\bname\b(?! of)|姓名|全名|名字|姓氏"),
        ("zip", r"\bzip\b|\bzip code\b|\bpost ?code\b|\bpostal code\b|邮编|邮政编码"),
    ]
)
STRONG_FIELDS = frozenset({"card_last4", "member_id", "dob", "phone", "email", "name"})

# -- what the agent asks for ----------------------------------------------------------------

SLOTS = _named(
    [
        (
            "order_id",
            r"\border (?:number|id|no|reference|code)\b|\border #\?|\border ?id\b|\b(?:which|what) order\b|\border numbers?\b|订单号|订单编号|哪(?:一)?(?:个|笔)订单|什么订单",
        ),
        ("membership_id", r"\bmembership id\b|\bwhich membership\b"),
        (
            "invoice_id",
            r"\binvoice (?:number|id|no)\b|\bwhich invoice\b(?! line)|发票号|账单号|哪(?:张|个)发票",
        ),
        (
            "booking_id",
            r"\b(?:booking|reservation|confirmation) (?:reference|ref|number|code|id)\b|\b(?:which|what) (?:booking|reservation|flight)\b|\bpnr\b|预订号|预约号|确认号",
        ),
        ("user_id", r"\b(?:which|what) user\b|\bfor whom\b|\buser id\b|哪位用户|哪个用户|给谁"),
        ("title", r"\b(?:called|titled|named)\b|\btitle\b|标题|名称|叫什么"),
        (
            "item",
            r"\b(?:which|what) (?:items?|products?|articles?|of the items)\b|\bitem\(s\)|哪(?:一)?件|哪(?:一)?(?:个|款|样|些)(?:商品|东西|产品)|什么商品",
        ),
        (
            "option",
            r"\b(?:size|colou?r|variant|option|model|style|shade)s?\b|尺码|颜色|款式|规格|型号|尺寸",
        ),
        (
            "reason",
            r"\breason\b|\bwhy (?:would|do|are|did|is) you\b|\bwhy you\b|\bwhat is (?:prompting|behind)\b|\bprompting\b|原因|为什么要",
        ),
        (
            "refund_method",
            r"\b(?:refund|money)\b.{0,60}\b(?:card|gift card|store credit|original (?:payment|method)|paypal|wallet|balance|visa|mastercard|amex|bank account)\b"
            r"|\bwhere (?:should|shall|do|would) (?:we|i) (?:send|put|return|refund)\b|\brefund (?:method|destination)\b"
            r"|退款方式|退(?:款)?(?:到|回)哪|(?:退款|退回|退到).{0,12}(?:卡|原路|支付方式|账户|余额)",
        ),
        (
            "payment_method",
            r"\b(?:charged|charge|pay|paid|settled?|billed) (?:\w+ ){0,3}?(?:to|with|on|by|using) (?:your |the |a )?(?:gift card|card|original|paypal|wallet)"
            r"|\bpayment method\b|\bhow would you like to pay\b|支付方式|哪种方式支付|怎么支付|用什么支付",
        ),
        (
            "address",
            r"(?<!e-mail )(?<!email )\baddress\b|\bwhere (?:should|shall|do|would|can) (?:\w+ ){0,4}?(?:ship|deliver|send)"
            r"|\b(?:ship|send|deliver)(?:ped)? (?:it|them|this|that|the (?:order|package|parcel|item)) to\s*\?|地址|寄到哪|送到哪",
        ),
        ("amount", r"\bhow much\b|\bamount\b|多少钱|金额|退多少|多少(?:元|块)"),
        (
            "duration",
            r"\bhow long\b|\bhow many (?:months|weeks|days|years)\b|\bfor how many\b|\bduration\b|几个月|多久|多长时间|几天(?!内|后)|几周",
        ),
        (
            "quantity",
            r"\bhow many\b|\bquantity\b|\bnumber of (?:units|items)\b|几件|数量|多少件|多少个",
        ),
        (
            "date",
            r"\bwhen (?:did|was|were|do|does|is|would|will|should|can|you)\b|\b(?:what|which) (?:day|date|month)\b|\bdate\b(?! of birth)|\bmonth\b|\broughly when\b|哪天|什么时候|(?<!出生)日期|几号|哪个月|月份|哪一天",
        ),
        (
            "time",
            r"\bwhat time\b|\bwhich time\b|\btime\b(?! (?:to|for|window))|\bslot\b|\bmorning\b|\bafternoon\b|\bevening\b|几点|时间|上午|下午|晚上",
        ),
        ("plan", r"\bplan\b|\btier\b|套餐|哪个版|方案"),
        (
            "charge",
            r"\bcharges?\b|\btransactions?\b|\binvoice line\b|\bwhich (?:fee|payment)\b(?! method)|(?<!被)扣款|哪(?:一)?笔(?!订单)|费用项",
        ),
        (
            "description",
            r"\bwhat happened\b|\bdescribe\b|\bwalk me through\b|\bwhat (?:is|was) wrong\b|\bwhat went wrong\b|\bthe damage\b|\bmore (?:details|about)\b|\b(?:tell me|say) (?:a bit |a little )?more\b|\bthe (?:issue|problem)\b|\brephrase\b|\bsay that again\b|\brepeat that\b|\bclarify\b|\bwhat do you mean\b|具体情况|描述|发生了什么|怎么回事|详细|说说|遇到的问题",
        ),
    ]
)
RECHECK = _rx(
    r"\b(?:check|double-check|double check|verify|confirm|re-?enter|paste|try again|another one|resend|re-?type|look again)\b",
    r"核对|确认一下|再发|重新输入|再(?:确认|检查)|其他订单号",
)
REQUEST = _rx(
    r"^please\b|\bplease (?:provide|share|send|give|tell|let|enter|type|reply|confirm|include|pick|choose|select|describe|check|double-check|verify|specify|paste)\b",
    r"\b(?:could|can|would|will) you\b|\bmind \w+ing\b|\bi (?:will |would |just |also |still )?need (?:your|the|to know|two things|a couple|some|a few|either)\b",
    r"\bi (?:have|need) to know\b|\blet me know\b|\btell me\b|\bshare (?:the|your)\b|\bprovide (?:the|your)\b|,? please[.!]?$",
    r"\blet us start by\b|\breply with\b|\bsend me\b|\bgive me\b|\b(?:can|could|may) i (?:get|have|ask (?:for|you))\b|\bi will need\b|\bwhat is your\b|\bpick\b|\bchoose\b|\bselect\b",
    r"^能(?:再|不能|否)|^可以再|只需要|我需要|需要您|^请|^麻烦|请(?:问|提供|告诉|说|报|输入|回复|选择|确认|核对|描述|发|先)|麻烦|需要(?:您)?(?:提供|告诉)|能否|可否|方便(?:说|告诉|提供)|您能|能不能|请您|告诉我|需要.{0,4}信息|以下信息|任选",
)
WH = re.compile(
    r"\b(?:what|which|when|where|who|whom|whose|why|how)\b|哪|什么|多少|几(?!天内|天后)|怎么|谁|为什么|何时"
)
# A clause that goes on after a request ("请先告诉我您的邮箱，以及您要咨询的订单号") asks too.
CONTINUES = re.compile(r"^(?:and|plus|also|along with|as well as)\b|^(?:以及|和|及|并且|还有|另外)")
WHICH = re.compile(r"\bwhich\b|哪(?:一|个|种|些|件|位|款)")
PICK = re.compile(r"\b(?:pick|choose|select)\b|请选择|任选|选哪")
REQUEST_VERBS = re.compile(
    r"\b(?:tell me|paste|send|share|give|provide|let me know|type|enter)\b|告诉我|再发|提供"
)
# Words that say "the customer wants this action?" without the agent offering to do it itself.
WANT_ACTION = re.compile(
    r"\b(?:would you like|do you want|want) to\b|\bshould (?:i|we)\b|您(?:是)?(?:想|要)|需要|要不要"
)

# -- the customer's own side (dual control) --------------------------------------------------

STEP_VERBS = _named(
    [
        ("restart", r"\b(?:restart|reboot|power[- ]cycle)\w*|重启|重新启动"),
        (
            "toggle",
            r"\btoggl\w*|\boff and (?:then )?(?:back )?on\b|\bon and (?:then )?(?:back )?off\b|关(?:掉|闭)再(?:重新)?(?:打开|开启)|打开再关闭",
        ),
        (
            "turn_off",
            r"\b(?:turn|switch|power)(?:ing|ed)?\s+(?:\w+\s+){0,3}?off\b(?! and (?:then )?(?:back )?on)|\bdisabl\w*|\bunplug\w*|关闭|关掉|关上|关机|拔掉|拔出电源",
        ),
        (
            "turn_on",
            r"\b(?:turn|switch|power)(?:ing|ed)?\s+(?:\w+\s+){0,3}?on\b(?! and (?:then )?(?:back )?off)|\benabl\w*|\bplug (?:it )?(?:back )?in\b|打开(?!设置|app|应用)|开启|开机|插上|接通",
        ),
        ("open", r"\b(?:go|navigate|head) to\b|\bopen\b|\btap\b|进入|前往|点击|点开|打开"),
        ("check", r"\bcheck\b|\blook at\b|\bsee (?:if|whether)\b|检查|查看|看一下|看看"),
        ("reset", r"\breset\b|重置|还原"),
        ("reinstall", r"\b(?:re)?install\w*|重新安装|重装|卸载"),
        ("log_out", r"\b(?:log|sign)(?:ging)? (?:out|off)\b|退出(?:登录)?|注销登录"),
        ("log_in", r"\b(?:log|sign)(?:ging)? (?:back )?in\b|登录|登入"),
        ("clear", r"\bclear\b|清除|清理"),
        ("remove", r"\bremov\w*|\btake (?:out|it out)\b|取出|拔出|拿出|取下"),
        ("insert", r"\binsert\w*|\bput(?:ting)? (?:it |them )?back\b|装回|插回|放回"),
        ("dismiss", r"\bdismiss\w*"),
    ]
)
STEP_TARGETS = _named(
    [
        ("airplane_mode", r"\bairplane mode\b|\baeroplane mode\b|\bflight mode\b|飞行模式"),
        ("roaming", r"\b(?:data )?roaming\b|数据漫游|漫游"),
        ("mobile_data", r"\bmobile data\b|\bcellular(?: data)?\b|移动数据|蜂窝数据|流量"),
        ("wifi", r"\bwi-?fi\b|无线网络|wlan"),
        ("sim", r"\bsim(?: card)?\b|sim卡|电话卡"),
        ("settings", r"\b(?:network )?settings?\b|设置"),
        ("notifications", r"\bnotifications?\b|通知"),
        ("app", r"\bapp\b|\bapplication\b|应用|软件|(?<![a-z])app(?![a-z])"),
        ("router", r"\brouter\b|\bmodem\b|路由器|光猫"),
        ("bluetooth", r"\bbluetooth\b|蓝牙"),
        ("vpn", r"\bvpn\b"),
        ("cache", r"\bcache\b|缓存"),
        ("browser", r"\bbrowser\b|浏览器"),
        ("phone", r"\bphone\b(?! number)|\bdevice\b|\bhandset\b|手机|设备|关机|开机"),
        ("mobile_data", r"\bdata\b"),
    ]
)
STEP_DIRECTED = _rx(
    r"^(?:please |first,? |then,? |now,? |next,? |also,? |and |ok,? |okay,? |so,? |try to |try |just )*(?!\w+ing\b)(?:restart|reboot|power|turn|switch|toggle|enable|disable|unplug|plug|go|navigate|head|open|tap|check|look|see|reset|reinstall|install|log|sign|clear|remove|take|insert|put|dismiss)\b",
    r"\bplease\b|\b(?:could|can|would|will) you\b|\bmind \w+ing\b|\blet us\b|\btry (?:this|that|to)\b",
    r"请|麻烦|先|再|试试|一下|您可以",
)

# -- explanations, statuses and reasons -----------------------------------------------------

EXPLAIN = _rx(
    r"(?<!^)\bso (?:that )?(?:i|we) can\b(?! not)|\bso (?:that )?(?:nobody|no one)\b|\bin order to\b",
    r"\bto (?:protect|keep (?:your|it)|ensure|prevent|safeguard)\b|\bfor (?:your )?(?:security|safety|privacy|protection)\b",
    r"\bfor (?:security|verification) (?:reasons|purposes)\b|\b(?:this|that|it) (?:keeps|protects|helps protect)\b",
    r"\bsecurity (?:step|measure|reasons|precaution)\b|\b(?:standard|required|mandatory) (?:security )?(?:step|procedure|practice|check)\b",
    r"\bwe (?:require|need) (?:it|this|that)\b|\brequired (?:by|under) (?:policy|law)\b|\bby policy\b|\bthe same for (?:every|all)\b",
    r"\bfor (?:every|all) customers\b|\bi ask (?:for )?(?:this|that|because)\b|\bthe reason i (?:ask|need)\b|\bbecause (?:we|i) (?:need|have to|must)\b",
    r"\buntil your identity\b|\bunless (?:you|we|i) (?:verify|confirm)\b|\bwithout (?:verifying|confirming) (?:your|who)\b|\b(?:have|need) to be sure\b",
    r"为了|以便|方便我|出于(?:安全|隐私)|之所以|是因为|这是为了|用于|用来|目的是|才能(?:查|找|确认|核实|处理)|为保障|安全起见|(?:保护|保障)您的|防止",
)
INFORM = _rx(
    r"\b(?:is|are|was|were) (?:still |currently |now |already )?(?:pending|processing|shipped|delivered|in transit|out for delivery|active|inactive|on hold|eligible|overdue|due|outstanding|expired|unpaid|within)\b",
    r"\bhas(?: not)? (?:shipped|arrived)\b|\barrived\b|\bdelivered\b|\b(?:left|remaining)\b|\b(?:total|balance|subtotal|price)\b",
    r"\bcomes to\b|\bso far\b|\bto date\b|\bcurrently\b|\bper (?:month|year)\b|\bpaid\b|\bis possible\b|\beligible\b",
    r"^(?:processing|working on it|on it)\b|\bprocessing (?:it |that |this )?now\b|\b(?:is|are) being \w+ed\b|\bhave received\b",
    r"\b(?:renews|expires|ends|starts|begins) (?:on|automatically|in|at|today|tomorrow|next)\b|\b(?:is due|will be charged|is scheduled)\b|\bheads-up\b|\bjust so you know\b|\bplease note\b",
    r"\byou (?:will )?(?:need|have) to\b|\byou must\b|温馨提示|提醒您|将于|自动续费|需要您",
    r"状态|待发货|已发货|配送中|派送中|合计|总计|共计|余额|剩余|还剩|目前|正在|每月|价格|扣除|已支付|签收|退货期内",
)
PROGRESSIVE = re.compile(r"\bi am (?:now )?\w+ing\b|正在")
REASON = _rx(
    r"\bbecause\b|\bsince\b|\bas (?!well|soon|much|long|a |an |of|per|you)\w|\bdue to\b|\bgiven (?:that )?\b|\balready\b|\bonly\b|\bpolicy\b",
    r"\boutside (?:the|your|our) (?:\S+ )?(?:window|period)\b|\bwindow\b|\bexpired\b|\bpast\b|\bmore than\b|\bexceed\w*|\bnot eligible\b",
    r"\bshipped\b|\bdelivered\b|\bin transit\b|\bout for delivery\b|\bleft our\b|\bcommitment\b|\blimit\b|\bmaximum\b|\bper (?:year|month)\b",
    r"\bbelongs to\b|\banother (?:customer|account|person)\b|\bout of stock\b|\bsold out\b|\brequires?\b|\binclude\w*\b|\bstill in\b",
    r"\binside your\b|\buntil \d|\bthe most\b|\bat most\b|\bused (?:both|all|up)\b|\bwithin \d|\bplaced on\b|\bcontract\b|\bminimum (?:term|period)\b|\bfinal sale\b|\bended\b|\bexpired\b|\bran out\b|\bno longer valid\b|\b(?:do|does|did) not have (?:access|permission|the ability)\b|,\s*so\b",
    r"因为|由于|所以|已经|已(?!为您)|只能|只有|仅|超过|根据|规定|政策|期限|期内|派送|发货|签收|用完|缺货|卖完|属于|不包含|合约|最多",
)

# -- options ----------------------------------------------------------------------------------

OPTION_WORD = re.compile(
    r"^(?:red|blue|green|black|white|grey|gray|navy|olive|brown|pink|purple|teal|silver|brass|rose|steel|gold|yellow|orange|beige"
    r"|xs|s|m|l|xl|xxl|small|medium|large|x-large|size \d+|\d+码|[\u4e00-\u9fff]{0,3}[色红绿蓝黑白灰粉紫黄码])$"
)
# A yes/no question opens with an auxiliary (or ends with 吗); a fragment ("last four digits
# of the card and your ZIP?") does not, and asks for the values.
YES_NO = re.compile(
    r"^(?:so,?\s+|and\s+|oh,?\s+|okay,?\s+|ok,?\s+|just\s+)?(?:is|are|was|were|do|does|did|can|could|would|will|should|shall|may|have|has|had)\b"
    r"|[吗吧][\s？?。]*$|是不是|对不对|是否|有没有"
)
# "the item is the running shoes, size 9?": a statement with a question mark checks a fact.
CHECK_FORM = re.compile(
    r"^(?!.*\b(?:what|which|when|where|who|why|how)\b).*\b(?:is|are|was|were)\b.*\?$"
)
