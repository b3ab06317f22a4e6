"""OmniToM agents: the paper's prompts and table parsers, the semantic judge, the symbolic gold annotator and
the ``omnitom-stage1`` / ``omnitom-stage2`` benchmarks (see docs/omnitom.md)."""

from mindloop.systems.omnitom.annotator import AnnotatedFile, annotate_events, annotate_story_file, annotate_text
from mindloop.systems.omnitom.examples import APPENDIX_E, TABLE2, appendix_e_record, appendix_e_records
from mindloop.systems.omnitom.judge import JudgeAligner
from mindloop.systems.omnitom.prompts import judge_messages, stage1_messages, stage2_messages
from mindloop.systems.omnitom.tables import parse_stage1, parse_stage2
from mindloop.systems.omnitom.templated import generate_false_belief_stories, parse_templated_story

__all__ = [
    "APPENDIX_E",
    "TABLE2",
    "AnnotatedFile",
    "JudgeAligner",
    "annotate_events",
    "annotate_story_file",
    "annotate_text",
    "appendix_e_record",
    "appendix_e_records",
    "generate_false_belief_stories",
    "judge_messages",
    "parse_stage1",
    "parse_stage2",
    "parse_templated_story",
    "stage1_messages",
    "stage2_messages",
]
