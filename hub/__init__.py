"""The published-data contract: what JieZi-Dataset and JieZi-Bench are, read by the builder
that writes them and by every consumer that reads them (harness, training, the Space).

Modules: ``rows`` (the columns / ``datasets.Features`` of every published config),
``templates`` (the question templates and the config each template kind belongs to),
``read`` (reading a Hub-layout folder or repo id back), ``layout`` (where each stage writes
inside a `jiezi build` folder), ``imageio`` (the one guarded image opener), ``skips``
(recording skipped bad input). It imports nothing of the project but ``metrics.acce``, so
any stage may import it (shared base in ARCHITECTURE.md).
"""
