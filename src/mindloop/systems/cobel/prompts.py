"""The prompts of CoBel-World (Fig. 5–15), as templates with the paper's ``$NAME$`` placeholders.

The texts follow the paper. Its task sentences are TDW-MAT's ("transport as many target objects as possible to
the bed … within 3000 steps"); for C-WAH the world supplies its own goal sentence and abilities through
``$TASK$`` and ``$ABILITIES$``. Where they differ from the paper's figures: the atomic actions (``$ATOMIC$``) are
our worlds' (:data:`TDW_ATOMIC`, :data:`CWAH_ATOMIC`), named apart from their argument so that small models do not
copy a slot such as ``'explore <room>(id)'`` into a plan; Fig. 10, 11 and 15 take the world's ``$ABILITIES$`` where
the paper lists TDW-MAT's; Fig. 13 ends with ``Answer in this format: Message:``; Fig. 14's note keeps only its
last sentence. :func:`fill` substitutes placeholders and refuses to leave one unfilled; :func:`echoes` finds the
format slots and examples of a prompt that a reply copied verbatim.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from mindloop.errors import InvalidArgumentError

__all__ = [
    "ADAPTIVE_COLLABORATION",
    "COMMUNICATION",
    "FIRST_ORDER_PREDICTION",
    "FIRST_ORDER_UPDATE",
    "NL_FIRST_ORDER_UPDATE",
    "NL_ZERO_ORDER_UPDATE",
    "PLANNING",
    "REPLANNING",
    "RULES_DISCUSS",
    "RULES_INIT",
    "RULES_REFINE",
    "ZERO_ORDER_PREDICTION",
    "ZERO_ORDER_UPDATE",
    "echoes",
    "fill",
    "section",
]

TDW_TASK = (
    "I am $AGENT_NAME$. My teammate $OPPO_NAME$ and I want to transport as many target objects as possible to the "
    "bed with the help of containers within 3000 steps."
)
TDW_ABILITIES = (
    "I can hold two things at a time, and they can be objects or containers. I can grasp containers and put objects "
    "into them to hold more objects at a time. Note that a container can contain three objects, and will be lost "
    "once transported to the bed."
)
TDW_ATOMIC = (
    "Composed of 1 to 3 atomic actions selected from the allowed set: 1) 'explore': go to a room and explore it (if "
    "it is not fully explored) for underlying target objects. 2) 'grab': go to grasp a specified target object or "
    "container (a grasped object is put into a held container with room). 3) 'transport': Transport holding objects "
    "or containers to the bed and drop them on the bed. Write each action as its name followed by the entity it acts "
    "on, written as in the beliefs."
)
"""TDW-MAT's atomic actions in our world (the paper's five, ``go to`` … ``put``, are three here: ``explore`` goes
to the room, ``grab`` puts into a held container). The actions are named apart from their argument: a slot such as
``'explore <room>(id)'`` was copied verbatim by small models as if it were a plan."""
CWAH_ABILITIES = (
    "I can hold two objects at a time. Objects may be inside closed containers, which I must open to see inside."
)
CWAH_ATOMIC = (
    "Composed of 1 to 3 atomic actions selected from the allowed set: 1) 'explore': go to a room and open its "
    "unexplored containers. 2) 'grab': go to grasp a specified object. 3) 'deliver': put the held goal objects on or "
    "in the goal's target. Write each action as its name followed by the entity it acts on, written as in the "
    "beliefs."
)
"""C-WAH's atomic actions, named apart from their argument (see :data:`TDW_ATOMIC`)."""

RULES_INIT = """You are Alice, you and Bob are constructing beliefs rules to denote the zero and first order belief of \
the world. You should first extract entity types and predicates in a specific domain given a task description and the \
belief symbolic language below. After that you should use the belief symbolic language to describe the possible \
belief types in this task domain and send to bob for discussion.

Belief symbolic language: $BELIEF_LANGUAGE$

Task description: $TASK_DESCRIPTION$
Note that the zeroth-order belief denote my knowledge of the world, first-order belief denote my knowledge of others \
belief.
DO NOT generate beliefs that go beyond the information specified in the task description. Consider ONLY zero-order \
and first-order beliefs.
The belief rules should be in syntax format with entity represented with a "?" prefix, and without any additional \
comment and analysis and explanation: You should output strictly in the format of the following structure:

Entity and predicate reasoning:
Zero order belief rules:
First order belief rules:"""
"""Fig. 5, Alice's init prompt."""

RULES_REFINE = """You are Alice, you and Bob are constructing beliefs rules to denote the zero and first order belief \
of the world. Given a task description and the belief symbolic language below, you should refine the belief rules \
according to Bob's suggestions.

Belief symbolic language: $BELIEF_LANGUAGE$
Task description: $TASK_DESCRIPTION$
previous content: $PREVIOUS_CONTENT$
Bob's suggestions: $SUGGESTIONS$

DO NOT generate beliefs that go beyond the information specified in the task description. Consider ONLY \
zeroth-order and first-order beliefs.
Note that the zeroth-order belief denote my knowledge of the world, first-order belief denote my knowledge of others \
belief.
Now try to refine your previous output according to Bob's suggestions. The belief rules should be in syntax format \
with entity represented with a ? prefix, and without any additional comment and analysis and explanation: You should \
output strictly in the format of the following structure:

Reasoning:
Zero order belief rules:
First order belief rules:"""
"""Fig. 5, Alice's refine prompt."""

RULES_DISCUSS = """You are bob, you and Alice are constructing belief rules to denote the zero and first order belief \
of the world. You are required to check the belief rules made by Alice given the challenge description below. Give \
your reasoning progress in the reasoning:. And then give your comments: Satisfied or Unsatisfied. If Unsatisfied, you \
should give your suggestions to Alice on how to refine the construction.

These suggestions may include:
Missing logical relationships among key beliefs, such as omitting the agent's belief about its position.
Formatting errors, failing to comply with the prescribed format of the belief language.

Belief symbolic language: $BELIEF_LANGUAGE$ Task description: $TASK_DESCRIPTION$ Alice content: $ALICE_CONTENT$ \
Check if Alice's construction satisfy the need. Make deletion advice when occurring repeat syntagma. DO NOT provide \
suggestions that go beyond the information specified in the task description. Consider ONLY zeroth-order and \
first-order beliefs. Note that the zeroth-order belief denote my knowledge of the world, first-order belief denote my \
knowledge of others belief.

You should output strictly in the format of the following structure:

Reasoning:
Suggestions:
Satisfied:(yes or no)"""
"""Fig. 6, Bob's discuss prompt."""

FIRST_ORDER_UPDATE = """$TASK$

You are an expert in multi-agent theory-of-mind reasoning. Your task is to analyze, from the perspective of \
$AGENT_NAME$, what $AGENT_NAME$ believes about what $OPPO_NAME$ knows after the dialogue concludes. This constitutes \
$AGENT_NAME$'s first-order belief about $OPPO_NAME$'s knowledge.

Given the dialogue history and belief rules below, perform the following steps:

1. Information Extraction Identify all information that $AGENT_NAME$ can infer from the dialogue, including:
Statements made by others to $AGENT_NAME$,
Statements $AGENT_NAME$ themselves made (which reflect their prior knowledge).
2. First-Order Belief Representation:
Based solely on the above information and the provided belief rules, generate $AGENT_NAME$'s first-order beliefs \
about $OPPO_NAME$'s knowledge. Notice:
- Adhere strictly to the belief rules; do not introduce external assumptions.
- Replace all placeholders prefixed with "?" with concrete entities mentioned in the dialogue.
- Represent all non-agent entities as <name>(id), e.g., <table>(712).
- Distinguish between private and shared knowledge.
- Beliefs must be expressed in the formal belief rules format—no natural language explanations.
3. Plan Extraction:
Extract $OPPO_NAME$'s explicitly stated or unambiguously expressed plan for their next action, as conveyed in the \
dialogue. A "plan" refers to an intended future action declared by $OPPO_NAME$. Only include plans that are directly \
mentioned or clearly articulated; do not infer, complete, or hypothesize based on partial or implicit cues. If no such \
plan is present, state "None".

Constraints:
Do not generate any information not explicitly present or logically entailed by the dialogue. All output must conform \
to the structure and syntax of the belief rules. Following are provided information for you:

Dialogue History: $MESSAGES$
Belief Rules: $RULES$
Output Format: Extracted Information: [about what $AGENT_NAME$ knows]
First order beliefs: [first-order beliefs in belief rule format]
$OPPO_NAME$'s plan: [concise description of the next plan]"""
"""Fig. 8."""

ZERO_ORDER_UPDATE = """$TASK$

You are an expert in multi-agent theory-of-mind reasoning. Your task is to analyze, from the perspective of \
$AGENT_NAME$, what $AGENT_NAME$ knows after the dialogue concludes—this includes information conveyed to $AGENT_NAME$ \
by others, as well as information $AGENT_NAME$ themselves expressed (which reflects their prior knowledge). This \
constitutes $AGENT_NAME$'s zero-order belief about collaborator's knowledge and task information.

Perform the following steps:

1. Information Extraction:
Extract all information that $AGENT_NAME$ possesses after the dialogue, based solely on the dialogue content.

2. Zero-Order Belief Generation:
Using only the extracted information and the belief rules below, generate $AGENT_NAME$'s zero-order beliefs.

Notice:

- Adhere strictly to the belief rules; do not introduce external assumptions.
- Replace all placeholders prefixed with "?" with concrete entities mentioned in the dialogue.
- Represent all non-agent entities as <name>(id), such as <table>(712).
- The exploration state of rooms MUST be exactly one of: part, all, or none.
- Beliefs must be expressed exclusively in the formal belief rule format—no natural language explanations.

Constraints:
Do not generate any information not explicitly present or logically entailed by the dialogue. All output must conform \
to the structure and syntax of the belief rules. Following are provided information for you:

Dialogue History: $MESSAGES$

Belief Rules: $RULES$

Answer strictly in this format:

Extracted Information: [about what $AGENT_NAME$ knows]

Zero order beliefs: [zero-order beliefs in belief rules format]"""
"""Fig. 9."""

NL_ZERO_ORDER_UPDATE = """$TASK$

You are an expert in multi-agent theory-of-mind reasoning. From the perspective of $AGENT_NAME$, write down in \
plain natural-language sentences what $AGENT_NAME$ knows after the dialogue below: the information others told \
$AGENT_NAME$ and what $AGENT_NAME$ said (which reflects prior knowledge). Write entities as <name>(id), such as \
<table>(712). Do not add anything the dialogue does not say.

Dialogue History: $MESSAGES$

Answer strictly in this format:

Beliefs: [sentences about what $AGENT_NAME$ knows]"""
"""Fig. 9 without the Symbolic Belief Representation (the No-SBR ablation): the zero-order update in words."""

NL_FIRST_ORDER_UPDATE = """$TASK$

You are an expert in multi-agent theory-of-mind reasoning. From the perspective of $AGENT_NAME$, write down in \
plain natural-language sentences what $AGENT_NAME$ thinks $OPPO_NAME$ knows after the dialogue below (what was \
said to $OPPO_NAME$ and what $OPPO_NAME$ said), keeping private and shared knowledge apart, and the plan \
$OPPO_NAME$ stated for the next action ("None" if no plan was stated). Write entities as <name>(id), such as \
<table>(712). Do not add anything the dialogue does not say.

Dialogue History: $MESSAGES$

Answer strictly in this format:

Beliefs: [sentences about what $OPPO_NAME$ knows]
$OPPO_NAME$'s plan: [the stated plan, or None]"""
"""Fig. 8 without the Symbolic Belief Representation (the No-SBR ablation): the first-order update in words."""

_PREDICTION_TAIL = """Actions take several steps to finish. It may be costly to go to another room or transport to \
the bed, use these actions sparingly. $ABILITIES$

Notice: All entities (rooms, objects, containers) must be strictly represented as <name>(id), e.g., \
<livingroom>(1000), <wicker_basket>(5388017)."""

_PLAN_RULES = "$ATOMIC$\n\n" + _PREDICTION_TAIL + "\n\nFollowing are provided information for you:\n\nGoal: $GOAL$\n\n"
"""What a plan must satisfy (Fig. 10, 11 and 15), then the goal their information starts with."""

FIRST_ORDER_PREDICTION = (
    """$TASK$

Your task is to simulate $OPPO_NAME$'s decision-making process in a theory-of-mind reasoning style, which is grounded \
in first-order beliefs about what I $OPPO_NAME$ knows. This first-order beliefs captures $AGENT_NAME$'s understanding \
of observations, actions, and knowledge of the environment.

First, perform belief-based reasoning: starting from explicit first-order belief, infer the possible beliefs \
$OPPO_NAME$ may hold about the locations of untransported target objects. e.g., if $AGENT_NAME$ believes a room has \
been explored "none", then $OPPO_NAME$ may reasonably believe that untransported target objects are likely present in \
that room. Provide this reasoning process and its conclusion after "reasoning:". You may list at most three concise \
belief-based justifications.

Second, based on this belief-based reasoning, generate the top three candidate plans that $OPPO_NAME$ is most likely \
to execute to maximize transport efficiency. Each plan must satisfy the following:

"""
    + _PLAN_RULES
    + """First-order Beliefs: $FIRST_ORDER_BELIEF$

Answer strictly in this format:

reasoning:

plans:

plan1:

plan2:

plan3:"""
)
"""Fig. 10."""

_MY_REASONING = """$TASK$

Your task is to simulate my ($AGENT_NAME$'s) decision-making process, grounded in my zero-order belief—i.e., my \
direct knowledge of the environment, including observed room exploration states and located objects.

First, perform belief-based reasoning: starting from my explicit zero-order belief, infer the possible beliefs I may \
hold about the locations of untransported target objects. For example, if I believe a room has been explored "none", \
I may reasonably believe that untransported target objects are likely present in that room. Provide this reasoning \
process and its conclusion after "reasoning:". You may list at most three concise belief-based justifications.

Second, based on this belief-based reasoning"""
"""The start Fig. 11 and Fig. 15 share: reasoning from my zero-order belief."""

ZERO_ORDER_PREDICTION = (
    _MY_REASONING
    + """, generate the best plan I am most likely to execute to maximize \
transport efficiency. The plan must satisfy the following:

"""
    + _PLAN_RULES
    + """Zero-order Beliefs: $ZERO_ORDER_BELIEFS$

Answer strictly in this format:

reasoning:

plan:"""
)
"""Fig. 11."""

ADAPTIVE_COLLABORATION = """$TASK$ $ABILITIES$ The room can be explored none/part/all.

Please answer the following questions:

1. Is there any potential miscoordination between my plan and $OPPO_NAME$'s plan, or between my zero-order beliefs \
and my first-order beliefs about $OPPO_NAME$? Please analyze the miscoordination in two aspects: (1) Conflicting \
plans: where my intended actions and $OPPO_NAME$'s intended actions may conflict in space or resource usage. Such as \
my plan is go to livingroom and explore it, while $OPPO_NAME$'s plans include go to livingroom and grasp the target \
object there. This is a conflict because we may explore in the same room at the same time which leads to a waste of \
time. (2) Belief misalignment: where my zero-order belief (what I know) and my first-order belief about $OPPO_NAME$ \
(what I believe $OPPO_NAME$ knows) are inconsistent regarding critical environmental states, potentially leading to \
inefficient or contradictory actions.

For example, I know <kitchen>(2000) is explored "all", but I believe $OPPO_NAME$ thinks <kitchen>(2000) is explored \
"none". Consequently, $OPPO_NAME$ might waste steps exploring an already fully explored room. Provide your analysis in \
at most three concise reasons.

2. If the above analysis reveals heavy miscoordination that would significantly impair task efficiency, answer Yes; \
otherwise, answer No. Minor or non-actionable belief discrepancies that do not lead to conflicting behavior should be \
tolerated.

3. If your answer is Yes, list the specific pieces of information that are misaligned between my zero-order belief \
and my first-order belief about $OPPO_NAME$. Itemize only the facts from my zero-order belief that are in conflict \
with what I believe $OPPO_NAME$ knows. For example: I know <apple>(12123) has been transported. Do not describe \
$OPPO_NAME$'s (believed) state.

4. If there is no heavy miscoordination, just answer NO.

Following are provided information for you:

My zero-order belief: $ZERO_ORDER_BELIEF$

My first-order belief about $OPPO_NAME$: $MY_FIRST_ORDER_BELIEF$

My plan: $MY_PLAN$

$OPPO_NAME$'s plans: $OPPO_PLANS$

Answer in this format:

reasons:

answer:

misaligned information:"""
"""Fig. 12."""

COMMUNICATION = """$TASK$ $ABILITIES$

Please help me generate a concise and clear message to inform $OPPO_NAME$ of the misaligned information i know but he \
don't know and inform $OPPO_NAME$ of my subplan to achieve our shared goal collaboratively. The message should meet \
following requirements:

1.The message has to be concise, reliable, and helpful for assisting $OPPO_NAME$ and me to make an efficient and \
consistent action plan, and transport as many objects to the bed as possible. Don't generate repetitive messages. \
2.The message must strictly contain two parts of contents : 1) information only $AGENT_NAME$ know and 2) my plan

Here is an example of generated message for you:

Example: Message:Hi $OPPO_NAME$, I've explored all of the <kitchen>(2000) and found <apple>(12123) there. I'm holding \
<banana>(12234). My subplan is to grasp <apple>(12123) and transport holding things to the bed.

Just send what $AGENT_NAME$ know, don't need to send what $OPPO_NAME$ knows. Following are provided information for \
you:

Misaligned information: $MISALIGNED_INFORMATION$

My subplan: $MY_PLAN$

Answer in this format:

Message:"""
"""Fig. 13."""

PLANNING = """$TASK$ $ABILITIES$ Actions take several steps to finish. It may be costly to go to another room or \
transport to the bed, use these actions sparingly.

Assume that you are an expert decision maker. Given our shared goal, my current plan, my previous actions, and my \
zero-order belief (i.e., my direct knowledge of the environment, including observed objects and room exploration \
states), please: (1) Analyze whether my current plan has been fully executed based on the previous actions and my \
zero-order belief; (2) If the plan is complete, respond with "SUBPLAN DONE"; (3) If the plan is not yet complete, \
select the best available next action from the provided action list to achieve the goal as efficiently as possible.

Note: All entities must be denoted as <name>(id), e.g., <table>(712).

Please provide up to three concise reasons to support your answer.

Following are provided information for you:

Goal: $GOAL$

My plan: $MY_PLANS$

Previous action: $PREVIOUS_ACTIONS$

My zero-order beliefs: $ZERO_ORDER_BELIEF$

Action list: $ACTION_LIST$

Answer strictly in this format: reasons: answer:"""
"""Fig. 14."""

REPLANNING = (
    _MY_REASONING
    + """ and $OPPO_NAME$'s plan, generate the best plan I should execute to \
transport target objects as efficiently as possible while actively avoiding conflicts with $OPPO_NAME$'s actions. The \
plan should complement $OPPO_NAME$'s activities to maximize overall team efficiency (e.g., by exploring different \
rooms or handling distinct objects). The generated plan must satisfy the following:

"""
    + _PLAN_RULES
    + """$OPPO_NAME$'s plan: $OPPO_PLAN$

Zero-order Beliefs: $ZERO_ORDER_BELIEFS$

Answer strictly in this format:

reasoning:

plan:"""
)
"""Fig. 15."""

ECHO_MARKERS: tuple[str, ...] = (
    # argument slots of the atomic actions (ours before the change, and the paper's own ``<name>(id)``)
    "<room>(id)",
    "<object>(id)",
    "<target>(id)",
    "<bed>(id)",
    "<name>(id)",
    # the descriptions of the atomic actions, copied as if they were a plan
    "go to a room and open its unexplored containers",
    "go to grasp a specified object",
    "put the held goal objects on or in the goal's target",
    "go to a room and explore it",
    "go to grasp a specified target object or container",
    # the slots of Fig. 8 / Fig. 9's output format and Fig. 6's
    "[about what",
    "belief rule format]",
    "belief rules format]",
    "belief rule format, one per line]",
    "belief rules format, one per line]",
    "[concise description of the next plan]",
    "(yes or no)",
    # the belief rules (the prompt's $RULES$) copied with their variables instead of beliefs
    "?agent BELIEVE",
    "?agentA BELIEVE ?agentB BELIEVE",
    # example entities and the example message (Fig. 8-15)
    "<table>(712)",
    "<livingroom>(1000)",
    "<kitchen>(2000)",
    "<wicker_basket>(5388017)",
    "5388017",
    "<apple>(12123)",
    "<banana>(12234)",
)
"""Format slots and examples the prompts show, which a reply should never copy: the markers :func:`echoes` looks
for. An example entity counts only when the prompt's own data does not name it too (C-WAH's living room is
``<livingroom>(1000)``, as in the paper's example)."""


def echoes(prompt: str, reply: str) -> list[str]:
    """The :data:`ECHO_MARKERS` that ``reply`` copied verbatim (case-insensitive) from ``prompt``; an example entity
    is left out when the prompt names it more often than its examples do (it is then the world's own).

    >>> p = "Actions: 1) 'explore <room>(id)': go to a room. e.g., <livingroom>(1000). Beliefs: <kitchen>(7) IN x"
    >>> echoes(p, "plan1: 'explore <room>(id)'\\nplan2: explore <kitchen>(7)")
    ['<room>(id)']
    >>> echoes(p, "plan: explore <livingroom>(1000)")
    ['<livingroom>(1000)']
    """
    low_prompt, low_reply = prompt.lower(), reply.lower()
    out = []
    for marker in ECHO_MARKERS:
        m = marker.lower()
        if m not in low_reply or m not in low_prompt:
            continue
        if re.fullmatch(r"<\w+>\(\d+\)|\d+", m) and low_prompt.count(m) > _example_count(low_prompt, m):
            continue
        out.append(marker)
    return out


_EXAMPLE_CONTEXT = re.compile(r"(?:e\.g\.,?|such as|for example,?|example: message:)[^\n]{0,160}", re.IGNORECASE)


def _example_count(prompt: str, marker: str) -> int:
    """How often ``marker`` occurs inside the prompt's examples (``e.g., …``, ``For example, …``, ``Example: …``)."""
    return sum(m.group(0).lower().count(marker) for m in _EXAMPLE_CONTEXT.finditer(prompt))


_PLACEHOLDER = re.compile(r"\$([A-Z_]+)\$")


def fill(template: str, values: Mapping[str, str]) -> str:
    """Substitute ``$NAME$`` placeholders (nested ones too, e.g. ``$TASK$`` naming ``$AGENT_NAME$``).

    Raises :class:`~mindloop.errors.InvalidArgumentError` naming any placeholder left without a value.
    """
    text = template
    for _ in range(3):
        text = _PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)
    missing = sorted(set(_PLACEHOLDER.findall(text)))
    if missing:
        raise InvalidArgumentError(f"prompt placeholders without a value: {', '.join(missing)}")
    return text


def section(text: str, label: str, labels: tuple[str, ...]) -> str | None:
    """The text after ``label:`` up to the next of ``labels`` (case-insensitive); ``None`` if ``label`` is absent.

    >>> section("reasons: far\\nanswer: Yes\\nmisaligned information: <a>(1) ON <bed>(2)", "answer",
    ...         ("reasons", "answer", "misaligned information"))
    'Yes'
    """
    pattern = re.compile(rf"(?im)^\s*[*#\s]*{re.escape(label)}\s*\**\s*:\s*")
    m = pattern.search(text)
    if m is None:
        return None
    rest = text[m.end() :]
    others = [o for o in labels if o.lower() != label.lower()]
    end = len(rest)
    for o in others:
        mo = re.compile(rf"(?im)^\s*[*#\s]*{re.escape(o)}\s*\**\s*:").search(rest)
        if mo is not None:
            end = min(end, mo.start())
    return rest[:end].strip()
