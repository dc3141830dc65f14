"""Compile tiers: how much optimisation a line's kernel gets, on both backends.

A new line should run at once, so its kernel is compiled at the cheapest
settings that keep the code correct (tier 0); a line with loops that is
launched again (REUSED_AT launches) is recompiled at full optimisation in
the background and swapped in at the first launch after that compile is
done (tier 2). The optimisation levels keep IEEE float semantics (no fast
math, no contraction), so both tiers compute bit-identical results.

    straight line   tier 0 for good (cpu: no IR passes, codegen opt 0;
                    cuda: O1 passes, NVPTX opt 0, driver JIT level 1)
    loop line       tier 0 first, then tier 2 in the background
                    (cpu: O2 + codegen opt 2; cuda: O3 + NVPTX opt 3, JIT default)

TILEFORTH_TIERS=full (or off, 0, no) compiles every kernel at once at its
full level, as benchmarks that time kernels need (benchmarks/ set it);
exports (word_ptx, kernel files, the launcher) always use full optimisation.
"""
from __future__ import annotations

import os

ENV = "TILEFORTH_TIERS"
REUSED_AT = 2  # the launch of a tier-0 loop kernel that starts its optimised compile (its first reuse)
TIER_CHEAP, TIER_FULL = 0, 2


def tiered() -> bool:
    """Whether new kernels start cheap (the default), or every kernel is compiled fully at once."""
    return os.environ.get(ENV, "").strip().lower() not in ("full", "off", "0", "no", "none")
