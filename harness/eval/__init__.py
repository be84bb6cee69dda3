"""Model runs over JieZi-Bench (``jiezi eval``): the per-question run (:mod:`harness.eval.run`),
the paper's one-request-per-image protocol (:mod:`harness.eval.protocol_paper`), the
model-backend registry (:mod:`harness.eval.backends`), prompting strategies, thinking
settings, the --limit sample and the resumable predictions log."""
