"""ToMi and Hi-ToM question answering: the symbolic tracker or a model answers "where does X think Y is" questions.

The story readers live in :mod:`mindloop.worlds.stories` (OmniToM reads the same stories); this system holds the
question-answering agents, the ``tomi``/``hitom`` benchmarks, the file evaluator behind ``mindloop tom eval`` and
its command group. See ``docs/tom.md``.
"""

from mindloop.systems.tom.evaluate import Answered, EvalReport, TypeScore, evaluate_examples, evaluate_file

__all__ = ["Answered", "EvalReport", "TypeScore", "evaluate_examples", "evaluate_file"]
