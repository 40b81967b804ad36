"""The GPU family as the registry (families/__init__.py) sees it."""

from hpcprobe.families.base import Command, Family
from hpcprobe.families.gpu.command import command_gpu
from hpcprobe.families.gpu.headline import gpu_headline
from hpcprobe.families.gpu.options import add_gpu_parser, check_gpu
from hpcprobe.families.gpu.report import SECTION
from hpcprobe.families.gpu.suite import gpu_main_steps
from hpcprobe.families.gpu.tables import GPU_BENCHMARK, gpu_tables

FAMILY = Family(
    "gpu", benchmarks=(GPU_BENCHMARK,),
    commands=(Command("gpu", 70, add_gpu_parser, command_gpu, check_gpu),),
    tables=gpu_tables, report=SECTION, headline=gpu_headline, main_steps=gpu_main_steps,
)
