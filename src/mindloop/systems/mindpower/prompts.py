"""The paper's prompts for the three reasoning settings (supplementary B.5), and the messages built from them.

* ``hierarchy`` — Fig. 15: the full MindPower Reasoning Hierarchy (``<Description>``, ``<Robot Belief>``,
  ``<Robot Desire>``, ``<Robot Intention>``, ``<Decision>``, ``<Action>``), with its two worked examples;
* ``decision`` — Fig. 17: ``<Decision>`` and ``<Action>`` only, no reasoning;
* ``think`` — Fig. 18: standard step-by-step reasoning in ``<Think>``, then ``<Decision>`` and ``<Action>``.

The texts are the figures' (typesetting escapes such as ``next\\_to`` removed). The input is either the
narration of what the robot perceived (text models) or rendered frames as image parts (vision models); dialogue
always goes in as text, as the paper's videos carry speech.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from mindloop.models.base import Message, image_part, message
from mindloop.systems.mindpower.hierarchy import check_setting

__all__ = ["PROMPTS", "HierarchyInput", "build_messages"]

_INTRO = "You are a household service robot observing a video that records human actions and conversations."

HIERARCHY_PROMPT = f"""{_INTRO}

Your task is to perform Theory of Mind reasoning (ToM-Reasoning) from the robot's perspective, based on both the \
visual events and any spoken dialogue in the video.

Your output must strictly follow the format and order below — do not add, remove, or reorder any parts.

If dialogue is also input, use both actions and speech to infer human beliefs, goals, and intentions.

# Output Format

- <Description>:
Provide a concise description of the sequence of human actions and/or speech observed in the video.

- ToM-Reasoning:
Contain exactly three lines (each line begins with the specified prefix):
- <Robot Belief>: Describe what the robot infers about the human's belief (include both the inferred belief and \
the actual world state).
- <Robot Desire>: Must always express the desire "to help the current human," but elaborate briefly on the helpful \
intent in context.
- <Robot Intention>: Describe the plan of action the robot intends to take to achieve its desire.

- <Decision>:
A single sentence specifying the exact action the robot will execute next.

- <Action>:
A high-level symbolic action sequence describing the robot's step-by-step plan to fulfill its decision, using \
structured function calls such as:
next_to (object), open (object), pick (object), pour (object1, object2), give (object, person), etc.

# Example 1

Input video:
David walks into the kitchen and places a mug on the table. Then he leaves.
Mia enters, picks up the mug, walks to the dishwasher, and puts it inside.
Later, David returns to the kitchen and looks around.

Output:
<Description> David walks into the kitchen, places a mug on the table, and leaves. Mia enters, takes the mug, \
places it in the dishwasher, and leaves. David reenters the kitchen and looks around.
<Robot Belief> I believe David is currently searching for the mug. I believe David thinks the mug is still on the \
table. I believe the mug is actually inside the dishwasher.
<Robot Desire> I want to help David achieve his goal of finding the mug, and resolve the mismatch between his \
belief and the real state of the world.
<Robot Intention> Retrieve the mug from the dishwasher and hand it to David.
<Decision> Correct his false belief and open the dishwasher and give the mug to David.
<Action> walk (dishwasher), open (dishwasher), pick (mug), close (dishwasher), walk (David), give (mug, David).

# Example 2

Input (Video and Dialogue):
Alex: "This room is so stuffy."
Jamie: "I just brushed my teeth and my mouth is still very dry."
Alex: "It would be nice if I could drink some water."

Output:
<Description> Alex comments that the room feels stuffy. Jamie mentions that he just brushed his teeth and that \
his mouth is very dry. Alex then says it would be nice to drink some water.
<Robot Belief> I believe Alex is feeling uncomfortable because the room is stuffy and he wants to drink water. I \
believe Jamie is experiencing dryness after brushing his teeth. I believe Alex thinks water would help his \
situation.
<Robot Desire> I want to help Alex get some water to relieve his discomfort.
<Robot Intention> Go to the kitchen, pour a glass of water, and bring it to Alex.
<Decision> Fetch a glass of water and give it to Alex.
<Action> walk (glass), pick (glass), pour (water, glass), walk (Alex), give (glass, Alex)."""

_ACTION_SPEC = """- <Decision>:
A single sentence specifying the exact action the robot will execute next.
- <Action>:
A high-level symbolic action sequence describing the robot's step-by-step plan to fulfill its decision, using \
structured function calls such as:
walk (object), open (object), pick (object), pour (object1, object2), give (object, person), etc."""

DECISION_PROMPT = f"""{_INTRO}
Your task is to reason from the robot's perspective based on the visual events in the video and, if present, any \
spoken dialogue, and then provide the appropriate <Decision> and <Action> that the robot should execute.
Your output must strictly follow the format and order below — do not add, remove, or reorder any parts.
If the input contains dialogue, you should use both actions and speech to perform the reasoning.
# Output Format
{_ACTION_SPEC}

# Example 1
Input video:
David walks into the kitchen and places a mug on the table. Then he leaves.
Mia enters, picks up the mug, walks to the dishwasher, and puts it inside.
Later, David returns to the kitchen and looks around.

Output:
<Decision> Open the dishwasher and give the mug to David.
<Action> walk (dishwasher), open (dishwasher), pick (mug), close (dishwasher), walk (David), give (mug, David).

# Example 2
Input (Video and Dialogue):
Alex: "This room is so stuffy."
Jamie: "I just brushed my teeth and my mouth is still very dry."
Alex: "It would be nice if I could drink some water."

Output:
<Decision> Fetch a glass of water and give it to Alex.
<Action> walk (glass), pick (glass), pour (water, glass), walk (Alex), give (glass, Alex)."""

THINK_PROMPT = f"""{_INTRO}
Your task is to reason from the robot's perspective based on the visual events in the video and, if present, any \
spoken dialogue, and then provide the appropriate <Think>, <Decision>, and <Action> that the robot should execute.
Your output must strictly follow the format and order below — do not add, remove, or reorder any parts.
If the input contains dialogue, you should use both actions and speech to perform the reasoning.
# Output Format
- <Think>:
A step-by-step reasoning process.
{_ACTION_SPEC}"""

PROMPTS: dict[str, str] = {"hierarchy": HIERARCHY_PROMPT, "decision": DECISION_PROMPT, "think": THINK_PROMPT}
"""The instruction of each setting (Fig. 15, Fig. 17, Fig. 18)."""


@dataclass(frozen=True)
class HierarchyInput:
    """What the robot perceived: the narrated window (with dialogue lines), or rendered frames plus the dialogue.

    ``frames`` are PNG bytes in time order; when given they replace the narration (dialogue stays as text).
    """

    observation: str
    dialogue: tuple[tuple[str, str], ...] = ()
    frames: tuple[bytes, ...] = field(default=(), repr=False)


def _speaker(name: str) -> str:
    return name[:1].upper() + name[1:]


def build_messages(setting: str, given: HierarchyInput) -> list[Message]:
    """One user message: the setting's instruction, then the input, then ``Output:`` (as in the examples).

    >>> msgs = build_messages("decision", HierarchyInput("Alice walks into the kitchen."))
    >>> msgs[0]["content"].endswith("Input video:\\nAlice walks into the kitchen.\\n\\nOutput:")
    True
    """
    prompt = PROMPTS[check_setting(setting)]
    if not given.frames:
        label = "Input (Video and Dialogue):" if given.dialogue else "Input video:"
        return [message("user", f"{prompt}\n\n# Input\n{label}\n{given.observation.strip()}\n\nOutput:")]
    n = len(given.frames)
    head = f"{prompt}\n\n# Input\n{'Input (Video and Dialogue):' if given.dialogue else 'Input video:'}\n"
    head += f"{n} frame{'s' if n != 1 else ''} of the video, in time order."
    parts: list[str | dict[str, Any]] = [head]
    parts.extend(image_part(f) for f in given.frames)
    tail = ""
    if given.dialogue:
        tail = "Dialogue:\n" + "\n".join(f'{_speaker(s)}: "{t}"' for s, t in given.dialogue) + "\n\n"
    parts.append(f"{tail}Output:")
    return [message("user", *parts)]
