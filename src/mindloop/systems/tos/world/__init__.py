"""Theory of Space: a multi-room grid world explored by jumping, turning and observing (text or vision).

See ``docs/tos.md``. The pieces: :class:`Scene` (rooms, objects, doors; :func:`load_scene` reads mindloop's
JSON format and the reference's ``meta_data.json``; :func:`generate_scene` makes seeded layouts),
:class:`SpatialEnv` (the Gymnasium environment), the observation text (:func:`observe`), the constraint solver
behind information gain (:class:`SpatialSolver`), covert changes (:func:`covert_changes`) and the nine
downstream tasks (:func:`generate_tasks`).
"""

from mindloop.systems.tos.world.actions import ActionParseError, ActionSequence, parse_actions
from mindloop.systems.tos.world.changes import Change, covert_changes
from mindloop.systems.tos.world.env import ActionResult, SpatialEnv, SpatialEnvConfig, Turn, describe_layout
from mindloop.systems.tos.world.layout import LayoutConfig, generate_scene
from mindloop.systems.tos.world.metadata import load_scene, scene_from_metadata
from mindloop.systems.tos.world.observe import Observation, observation_text, observe, parse_observation_text
from mindloop.systems.tos.world.relations import Relation, RelationTriple
from mindloop.systems.tos.world.scene import Door, Scene, SceneObject, scene_from_dict, scene_to_dict
from mindloop.systems.tos.world.solver import SpatialSolver, information_gain
from mindloop.systems.tos.world.tasks import TASKS, TaskQuestion, answer_spec, generate_tasks
from mindloop.systems.tos.world.world import SpatialWorld, world_from_scene

__all__ = [
    "TASKS",
    "ActionParseError",
    "ActionResult",
    "ActionSequence",
    "Change",
    "Door",
    "LayoutConfig",
    "Observation",
    "Relation",
    "RelationTriple",
    "Scene",
    "SceneObject",
    "SpatialEnv",
    "SpatialEnvConfig",
    "SpatialSolver",
    "SpatialWorld",
    "TaskQuestion",
    "Turn",
    "answer_spec",
    "covert_changes",
    "describe_layout",
    "generate_scene",
    "generate_tasks",
    "information_gain",
    "load_scene",
    "observation_text",
    "observe",
    "parse_actions",
    "parse_observation_text",
    "scene_from_dict",
    "scene_from_metadata",
    "scene_to_dict",
    "world_from_scene",
]
